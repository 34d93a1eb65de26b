// The indexing schemas PyTorch has no structured meta function for, served
// by hand (ops/table/index.yaml names them under `impl:`): index_select,
// take and masked_fill_. Each checks its arguments as CPU does, decides
// native or fallback from the table before launching, and launches its aclnn
// op. Index values are checked by the kernels when they run: an
// out-of-range index fails the next synchronize, naming the op, and nothing
// is accessed out of bounds. gather and the scatter family are structured:
// their registrations are generated.
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <c10/util/MaybeOwned.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

void check_index(const char* name, const at::Tensor& index) {
  check_npu(name, "index", index);
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt, name,
              "(): Expected dtype int32 or int64 for index, got ", index.scalar_type());
}

// out must not share memory with what the op reads (PyTorch's rule for out=).
void check_no_overlap(const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs) {
  at::assert_no_internal_overlap(out);
  for (const at::Tensor* in : inputs) {
    if (in->defined() && in->is_privateuseone()) at::assert_no_overlap(out, *in);
  }
}

// The entries name real dims: a 0-dim tensor takes part as its [1] view.
// Any other tensor is borrowed: a copy of a tensor Python holds costs two
// GIL round trips (its refcount goes 1 -> 2 -> 1). Bind the result to a
// name: `*` on a temporary MaybeOwned returns a copy.
c10::MaybeOwned<at::Tensor> as_1d(const at::Tensor& t) {
  if (t.dim() != 0) return c10::MaybeOwned<at::Tensor>::borrowed(t);
  return c10::MaybeOwned<at::Tensor>::owned(t.view({1}));
}

std::vector<int64_t> index_select_shape(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  if (self.dim() == 0) return {};  // PyTorch: a 0-dim self selects into a 0-dim result
  std::vector<int64_t> shape = self.sizes().vec();
  shape[dim] = index.numel();
  return shape;
}

void index_select_launch(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& out) {
  const auto self_1d = as_1d(self), index_1d = as_1d(index), out_1d = as_1d(out);
  NPU_RUN(aclnnIndexSelect, *self_1d, dim, *index_1d, *out_1d);
}

bool index_select_native(const char* schema, const at::Tensor& self) {
  return run_native(table::caps::aclnnIndexSelect, schema, {self.scalar_type()});
}

void check_take(const at::Tensor& self, const at::Tensor& index) {
  check_npu("take", "self", self);
  check_npu("take", "index", index);
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
}

}  // namespace

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, at::Tensor& out) {
  check_npu("index_select", "self", self);
  check_index("index_select", index);
  check_npu("index_select", "out", out);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): self and result must have the same scalar type");
  check_no_overlap(out, {&self, &index});
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  if (!index_select_native("index_select.out", self)) {
    return fallback_call<at::Tensor&>("index_select.out", self, dim, index, out);
  }
  write_out(out, index_select_shape(self, d, index), self.scalar_type(),
            [&](const at::Tensor& o) { index_select_launch(self, d, index, o); });
  return out;
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  check_npu("index_select", "self", self);
  check_index("index_select", index);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  if (!index_select_native("index_select", self)) return fallback_call<at::Tensor>("index_select", self, dim, index);
  return new_result(self, index_select_shape(self, d, index), self.scalar_type(),
                    [&](const at::Tensor& o) { index_select_launch(self, d, index, o); });
}

at::Tensor take(const at::Tensor& self, const at::Tensor& index) {
  check_take(self, index);
  if (!run_native(table::caps::aclnnTake, "take", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("take", self, index);
  }
  return new_result(self, index.sizes(), self.scalar_type(), [&](const at::Tensor& o) { NPU_RUN(aclnnTake, self, index, o); });
}

at::Tensor& take_out(const at::Tensor& self, const at::Tensor& index, at::Tensor& out) {
  check_take(self, index);
  check_npu("take", "out", out);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "take(): self and out expected to have the same dtype, but got "
              "self.dtype = ", self.scalar_type(), " and out.dtype = ", out.scalar_type());
  check_no_overlap(out, {&self, &index});
  if (!run_native(table::caps::aclnnTake, "take.out", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("take.out", self, index, out);
  }
  write_out(out, index.sizes(), self.scalar_type(), [&](const at::Tensor& o) { NPU_RUN(aclnnTake, self, index, o); });
  return out;
}

at::Tensor& masked_fill_scalar_(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  check_npu("masked_fill_", "self", self);
  check_npu("masked_fill_", "mask", mask);
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const auto shape = at::infer_size(self.sizes(), mask.sizes());
  TORCH_CHECK(at::IntArrayRef(shape) == self.sizes(), "masked_fill_: the mask of shape ", mask.sizes(),
              " must broadcast to self's shape ", self.sizes());
  // CPU's checks, at the call: an expanded self is deprecated (a warning), a
  // mask partly sharing self's memory is refused.
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes) {
    TORCH_WARN("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing "
               "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar");
  }
  at::assert_no_partial_overlap(self, mask);
  if (!run_native(table::caps::aclnnInplaceMaskedFillScalar, "masked_fill_.Scalar", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("masked_fill_.Scalar", self, mask, value);
  }
  if (self.numel() > 0) NPU_RUN(aclnnInplaceMaskedFillScalar, self, mask, value);
  return self;
}

at::Tensor& masked_fill_tensor_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_scalar_(self, mask, value.item());  // an npu value synchronizes here
}

}  // namespace npu::ops
