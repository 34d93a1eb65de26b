// The shared shape of the reductions PyTorch gives no meta function (max(),
// logsumexp, var/std; see dispatch/ops/reductions.cpp): which dims, the
// result's shape and dtype, out= resizing and casting, 0-dim and empty inputs.
// Each op supplies only its dtype rule and its aclnn launch. The out= helpers
// also serve other hand-written ops.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include <ATen/ATen.h>

namespace npu::ops {

// A reduction's input as the aclnn entries take it: explicit, wrapped dims;
// a 0-dim self is seen as shape [1] so that every dim list names real dims.
struct ReduceInput {
  at::Tensor self;
  std::vector<int64_t> dims;
  bool keepdim = false;
  std::vector<int64_t> shape;  // the result's shape (for the original self)
};
ReduceInput reduce_input(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim);

// Writes a result of `shape` and `dtype` into `out` with out= semantics:
// resized, launched into directly when out has `dtype`, else computed in a
// temporary and converted (as PyTorch does).
void write_out(at::Tensor& out, at::IntArrayRef shape, at::ScalarType dtype,
               const std::function<void(const at::Tensor&)>& launch);
// A new npu result of `shape` and `dtype` on `like`'s device, filled by `launch`.
at::Tensor new_result(const at::Tensor& like, at::IntArrayRef shape, at::ScalarType dtype,
                      const std::function<void(const at::Tensor&)>& launch);

// Throws PyTorch's error unless `t` is an npu tensor.
void check_npu(const char* op, const char* arg, const at::Tensor& t);

struct Reduction {
  const char* name;  // as PyTorch names it in messages ("amax", "sum")
  // The result dtype from self, dtype= and (for out= forms) out's dtype;
  // throws PyTorch's error for dtypes the op does not take.
  std::function<at::ScalarType(const at::Tensor& self, std::optional<at::ScalarType> dtype,
                               std::optional<at::ScalarType> out)>
      result_dtype;
  // out = op(self over dims), out already of the result's dtype and shape.
  std::function<void(const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out)> launch;
  bool needs_elements = false;  // no identity (max()): reduced dims must be non-empty
};

at::Tensor reduce(const Reduction& r, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<at::ScalarType> dtype = std::nullopt);
at::Tensor& reduce_out(const Reduction& r, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<at::ScalarType> dtype, at::Tensor& out);

}  // namespace npu::ops
