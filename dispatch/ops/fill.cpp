// fill_, zero_ (aclnnInplaceFillScalar/FillTensor/Zero) and reading one
// element back (_local_scalar_dense): registered by ops/table/copy.yaml.
#include <limits>

#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

// An aclScalar carries an integer as int64, so a uint64 value above INT64_MAX
// (the deterministic fill of an empty uint64 tensor, torch.full(..., 2**64 - 1))
// cannot travel as itself: into a uint64 tensor it travels as its bit pattern,
// which the kernel's cast back to uint64 restores; into a floating or complex
// tensor as its double value, which CPU's fill converts from too. Any other
// integer tensor keeps the value and gets the conversion's overflow error.
at::Scalar device_fill_value(const at::Tensor& self, const at::Scalar& value) {
  if (!value.isIntegral(false) || !value.isUnsigned() ||
      value.toUInt64() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return value;
  }
  if (self.scalar_type() == at::kUInt64) return at::Scalar(static_cast<int64_t>(value.toUInt64()));
  if (at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type())) {
    return at::Scalar(value.toDouble());
  }
  return value;
}

}  // namespace

at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceFillScalar, "fill_.Scalar", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("fill_.Scalar", self, value);
  }
  NPU_RUN(aclnnInplaceFillScalar, self, device_fill_value(self, value));
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
