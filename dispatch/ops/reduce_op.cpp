#include "dispatch/ops/reduce_op.h"

#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>

#include "dispatch/ops/factory.h"

namespace npu::ops {

namespace {

// The aclnn entries want real dims: a 0-dim tensor reduces as its [1] view.
at::Tensor at_least_1d(const at::Tensor& self) { return self.dim() == 0 ? self.view({1}) : self; }

}  // namespace

void check_npu(const char* op, const char* arg, const at::Tensor& t) {
  TORCH_CHECK(t.is_privateuseone(), "Expected all tensors to be on the same device, but found ", arg, " of ", op,
              " on ", t.device());
}

ReduceInput reduce_input(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  const auto mask = at::native::make_dim_mask(dim, self.dim());
  const auto shape = at::native::shape_from_dim_mask(self, mask, keepdim);
  ReduceInput in{at_least_1d(self), {}, keepdim, std::vector<int64_t>(shape.begin(), shape.end())};
  if (self.dim() == 0) {
    in.dims = {0};
    in.keepdim = false;
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (mask[d]) in.dims.push_back(d);
    }
  }
  return in;
}

void write_out(at::Tensor& out, at::IntArrayRef shape, at::ScalarType dtype,
               const std::function<void(const at::Tensor&)>& launch) {
  check_npu("an op", "out=", out);
  at::native::resize_output(out, shape);
  if (out.scalar_type() == dtype) {
    if (out.numel() > 0) launch(out);
    return;
  }
  const at::Tensor tmp = empty_npu(shape, dtype, out.device());
  if (tmp.numel() > 0) launch(tmp);
  out.copy_(tmp);
}

at::Tensor new_result(const at::Tensor& like, at::IntArrayRef shape, at::ScalarType dtype,
                      const std::function<void(const at::Tensor&)>& launch) {
  at::Tensor out = empty_npu(shape, dtype, like.device());
  if (out.numel() > 0) launch(out);
  return out;
}

namespace {

ReduceInput checked_input(const Reduction& r, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  check_npu(r.name, "self", self);
  ReduceInput in = reduce_input(self, dim, keepdim);
  if (r.needs_elements && self.numel() == 0) {
    const bool all_dims = !dim.has_value() || dim->empty();
    at::native::zero_numel_check_dims(self, all_dims ? at::IntArrayRef() : *dim, r.name);
  }
  return in;
}

}  // namespace

at::Tensor reduce(const Reduction& r, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<at::ScalarType> dtype) {
  const ReduceInput in = checked_input(r, self, dim, keepdim);
  return new_result(self, in.shape, r.result_dtype(self, dtype, std::nullopt),
                    [&](const at::Tensor& out) { r.launch(in.self, in.dims, in.keepdim, out); });
}

at::Tensor& reduce_out(const Reduction& r, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<at::ScalarType> dtype, at::Tensor& out) {
  const ReduceInput in = checked_input(r, self, dim, keepdim);
  write_out(out, in.shape, r.result_dtype(self, dtype, out.scalar_type()),
            [&](const at::Tensor& o) { r.launch(in.self, in.dims, in.keepdim, o); });
  return out;
}

}  // namespace npu::ops
