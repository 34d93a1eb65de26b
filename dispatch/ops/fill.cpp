// fill_, zero_ (aclnnInplaceFillScalar/FillTensor/Zero) and reading one
// element back (_local_scalar_dense): registered by ops/table/copy.yaml.
#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceFillScalar, "fill_.Scalar", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("fill_.Scalar", self, value);
  }
  NPU_RUN(aclnnInplaceFillScalar, self, value);
  return self;
}

at::Tensor& fill_tensor_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  // A value already on self's device is read there when the fill runs (no
  // synchronization); anything else is a host value.
  if (!value.is_privateuseone() || value.device() != self.device()) return fill_scalar_(self, value.item());
  if (self.numel() == 0) return self;
  // A value inside self is read as it was before the fill, as on CPU.
  const at::Tensor source = self.is_alias_of(value) ? value.clone() : value;
  if (!run_native(table::caps::aclnnInplaceFillTensor, "fill_.Tensor", {self.scalar_type(), value.scalar_type()})) {
    return fallback_call<at::Tensor&>("fill_.Tensor", self, value);
  }
  NPU_RUN(aclnnInplaceFillTensor, self, source);
  return self;
}

at::Tensor& zero_(at::Tensor& self) {
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceZero, "zero_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("zero_", self);
  }
  NPU_RUN(aclnnInplaceZero, self);
  return self;
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  const at::Tensor host = self.to(at::kCPU);  // synchronizes with the stream
  return host.item();
}

}  // namespace npu::ops
