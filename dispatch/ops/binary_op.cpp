#include "dispatch/ops/binary_op.h"

#include <ATen/ExpandUtils.h>

namespace npu::ops {

namespace {

void compute(const at::Tensor& self, const at::Tensor& other, const at::Tensor& out, const BinaryLaunch& launch) {
  if (out.numel() == 0) return;
  if (is_cpu_scalar(other) && launch.scalar) {
    launch.scalar(self, other.item(), out);
  } else if (is_cpu_scalar(self) && launch.commutative && launch.scalar) {
    launch.scalar(other, self.item(), out);
  } else if (is_cpu_scalar(self) && launch.scalar_self) {
    launch.scalar_self(self.item(), other, out);
  } else if (self.is_privateuseone() && other.is_privateuseone()) {
    launch.tensor(self, other, out);  // the common case: no promotion work here
  } else {
    const at::ScalarType common = at::result_type(self, other);
    launch.tensor(on_device(self, out.device(), common), on_device(other, out.device(), common), out);
  }
}

}  // namespace

at::ScalarType binary_result_dtype(const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch) {
  return result_dtype(launch.kind, at::result_type(self, other));
}

at::Tensor& binary_out(const char* name, const at::Tensor& self, const at::Tensor& other, at::Tensor& out,
                       const BinaryLaunch& launch) {
  pointwise_device(name, {&self, &other, &out});
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  const at::ScalarType result = binary_result_dtype(self, other, launch);
  prepare_out(name, out, shape, result, {self, other});
  launch_into(out, result, [&](const at::Tensor& o) { compute(self, other, o, launch); });
  return out;
}

at::Tensor binary(const char* name, const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch) {
  const at::Device device = pointwise_device(name, {&self, &other});
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  at::Tensor out = new_pointwise_result(shape, binary_result_dtype(self, other, launch), device, self);
  compute(self, other, out, launch);
  return out;
}

at::Tensor& binary_(const char* name, at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch) {
  check_inplace_shape(self, at::infer_size(self.sizes(), other.sizes()));
  return binary_out(name, self, other, self, launch);
}

}  // namespace npu::ops
