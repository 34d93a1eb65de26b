#include "dispatch/ops/binary_op.h"

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>

#include "dispatch/ops/factory.h"

namespace npu::ops {

namespace {

// A CPU 0-dim tensor next to an npu tensor acts as a scalar (as on CUDA).
bool is_cpu_scalar(const at::Tensor& t) { return t.is_cpu() && t.dim() == 0; }

void check_devices(const char* name, const at::Tensor& self, const at::Tensor& other) {
  const bool ok = (self.is_privateuseone() || is_cpu_scalar(self)) && (other.is_privateuseone() || is_cpu_scalar(other)) &&
                  !(self.is_privateuseone() && other.is_privateuseone() && self.device() != other.device());
  TORCH_CHECK(ok, "Expected all tensors to be on the same device, but found at least two devices, ", self.device(),
              " and ", other.device(), "! (when checking arguments for ", name, ")");
}

void compute(const at::Tensor& self, const at::Tensor& other, const at::Tensor& out, const BinaryLaunch& launch) {
  if (out.numel() == 0) return;
  if (is_cpu_scalar(other)) {
    launch.scalar(self, other.item(), out);
  } else if (is_cpu_scalar(self) && launch.commutative) {
    launch.scalar(other, self.item(), out);
  } else if (is_cpu_scalar(self)) {
    launch.tensor(self.to(out.device()), other, out);
  } else {
    launch.tensor(self, other, out);
  }
}

}  // namespace

at::Tensor& binary_out(const char* name, const at::Tensor& self, const at::Tensor& other, at::Tensor& out,
                       const BinaryLaunch& launch) {
  check_devices(name, self, other);
  TORCH_CHECK(out.is_privateuseone(), name, ": out= must be an npu tensor, got ", out.device());
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  const at::ScalarType common = at::result_type(self, other);
  TORCH_CHECK(at::canCast(common, out.scalar_type()), "result type ", common, " can't be cast to the desired output type ",
              out.scalar_type());
  at::native::resize_output(out, shape);
  at::assert_no_internal_overlap(out);
  at::assert_no_partial_overlap(out, self);
  at::assert_no_partial_overlap(out, other);
  if (out.scalar_type() == common) {
    compute(self, other, out, launch);
  } else {
    // Compute in the promoted type, then convert, as PyTorch does for out=.
    const at::Tensor tmp = empty_npu(shape, common, out.device());
    compute(self, other, tmp, launch);
    out.copy_(tmp);
  }
  return out;
}

at::Tensor binary(const char* name, const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch) {
  check_devices(name, self, other);
  const at::Device device = self.is_privateuseone() ? self.device() : other.device();
  at::Tensor out = empty_npu(at::infer_size(self.sizes(), other.sizes()), at::result_type(self, other), device);
  compute(self, other, out, launch);
  return out;
}

at::Tensor& binary_(const char* name, at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch) {
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  TORCH_CHECK(shape == self.sizes(), "output with shape ", self.sizes(), " doesn't match the broadcast shape ", shape);
  return binary_out(name, self, other, self, launch);
}

}  // namespace npu::ops
