// fill_, zero_ and reading one element back (_local_scalar_dense).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  NPU_RUN(aclnnInplaceFillScalar, self, value);
  return self;
}

at::Tensor& fill_tensor_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  return fill_scalar_(self, value.item());
}

at::Tensor& zero_(at::Tensor& self) {
  if (self.numel() == 0) return self;
  NPU_RUN(aclnnInplaceZero, self);
  return self;
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  const at::Tensor host = self.to(at::kCPU);  // synchronizes with the stream
  return host.item();
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("fill_.Scalar", TORCH_FN(fill_scalar_));
  m.impl("fill_.Tensor", TORCH_FN(fill_tensor_));
  m.impl("zero_", TORCH_FN(zero_));
  m.impl("_local_scalar_dense", TORCH_FN(local_scalar_dense));
}

}  // namespace npu::ops
