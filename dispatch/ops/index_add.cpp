// index_add / index_add_ / index_add.out on npu (ops/table/index.yaml,
// aclnnIndexAdd). PyTorch's meta function for index_add precomputes the
// wrapped dim, a form the table's generator does not complete, so the checks
// CPU makes (index a vector of int32/int64, source matching self but along
// dim, one dtype) are made here before launching. Autograd's backward of
// index_select (packed sequences with unsorted lengths, embedding-like
// gathers) is an index_add, so this keeps those backwards on the device.
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <c10/util/MaybeOwned.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

// A 0-dim tensor takes part as its [1] view (the kernel names real dims).
c10::MaybeOwned<at::Tensor> as_1d(const at::Tensor& t) {
  if (t.dim() != 0) return c10::MaybeOwned<at::Tensor>::borrowed(t);
  return c10::MaybeOwned<at::Tensor>::owned(t.view({1}));
}

// Checks as PyTorch's index_add meta function does; returns the wrapped dim.
int64_t check_index_add(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source) {
  check_npu("index_add", "self", self);
  check_npu("index_add", "index", index);
  check_npu("index_add", "source", source);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_add_(): Expected dtype int32/int64 for index but got: ", index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "index_add_(): self (", self.scalar_type(),
              ") and source (", source.scalar_type(), ") must have the same scalar type");
  TORCH_CHECK(std::max<int64_t>(self.dim(), 1) == std::max<int64_t>(source.dim(), 1),
              "index_add_(): self and source must have the same number of dimensions, got ", self.dim(), " and ",
              source.dim());
  const int64_t entries = source.dim() == 0 ? 1 : source.size(d);
  TORCH_CHECK(index.numel() == entries, "index_add_(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim) (", entries, ")");
  for (int64_t k = 0; k < self.dim(); ++k) {
    TORCH_CHECK(k == d || self.size(k) == source.size(k), "index_add_(): source must match self's shape but at dim ",
                d, ", got self ", self.sizes(), " and source ", source.sizes());
  }
  return d;
}

void launch(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
            const at::Scalar& alpha, const at::Tensor& out) {
  const auto self_1d = as_1d(self), index_1d = as_1d(index), source_1d = as_1d(source), out_1d = as_1d(out);
  NPU_RUN(aclnnIndexAdd, *self_1d, dim, *index_1d, *source_1d, alpha, *out_1d);
}

bool native(const char* schema, const at::Tensor& self) {
  return run_native(table::caps::aclnnIndexAdd, schema, {self.scalar_type()});
}

}  // namespace

at::Tensor& index_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                          const at::Scalar& alpha, at::Tensor& out) {
  const int64_t d = check_index_add(self, dim, index, source);
  check_npu("index_add", "out", out);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "index_add(): out (", out.scalar_type(),
              ") must have self's dtype (", self.scalar_type(), ")");
  if (!native("index_add.out", self)) {
    return fallback_call<at::Tensor&>("index_add.out", self, dim, index, source, alpha, out);
  }
  if (!out.is_same(self)) {
    at::assert_no_internal_overlap(out);
    for (const at::Tensor* in : {&self, &index, &source}) at::assert_no_overlap(out, *in);
  }
  write_out(out, self.sizes(), self.scalar_type(),
            [&](const at::Tensor& o) { launch(self, d, index, source, alpha, o); });
  return out;
}

at::Tensor index_add(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                     const at::Scalar& alpha) {
  const int64_t d = check_index_add(self, dim, index, source);
  if (!native("index_add", self)) return fallback_call<at::Tensor>("index_add", self, dim, index, source, alpha);
  return new_result(self, self.sizes(), self.scalar_type(),
                    [&](const at::Tensor& o) { launch(self, d, index, source, alpha, o); });
}

at::Tensor& index_add_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                       const at::Scalar& alpha) {
  const int64_t d = check_index_add(self, dim, index, source);
  if (!native("index_add_", self)) {
    return fallback_call<at::Tensor&>("index_add_", self, dim, index, source, alpha);
  }
  // As CPU: self may not share memory with index or source at all (not even
  // be the same tensor, which assert_no_partial_overlap allows).
  at::assert_no_internal_overlap(self);
  at::assert_no_overlap(self, index);
  at::assert_no_overlap(self, source);
  launch(self, d, index, source, alpha, self);
  return self;
}

}  // namespace npu::ops
