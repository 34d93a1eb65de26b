// add and mul on npu: aclnnAdd/aclnnAdds and aclnnMul/aclnnMuls.
#include <ATen/native/BinaryOps.h>
#include <torch/library.h>

#include "dispatch/ops/binary_op.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

BinaryLaunch add_launch(const at::Scalar& alpha) {
  return {[alpha](const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) { NPU_RUN(aclnnAdd, a, b, alpha, out); },
          [alpha](const at::Tensor& a, const at::Scalar& b, const at::Tensor& out) { NPU_RUN(aclnnAdds, a, b, alpha, out); },
          alpha.equal(1)};
}

const BinaryLaunch& mul_launch() {
  static const BinaryLaunch launch{
      [](const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) { NPU_RUN(aclnnMul, a, b, out); },
      [](const at::Tensor& a, const at::Scalar& b, const at::Tensor& out) { NPU_RUN(aclnnMuls, a, b, out); }, true};
  return launch;
}

at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_out("add", self, other, out, add_launch(alpha));
}
at::Tensor add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary("add", self, other, add_launch(alpha));
}
at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return binary_("add_", self, other, add_launch(alpha));
}

at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary_out("mul", self, other, out, mul_launch());
}
at::Tensor mul(const at::Tensor& self, const at::Tensor& other) { return binary("mul", self, other, mul_launch()); }
at::Tensor& mul_(at::Tensor& self, const at::Tensor& other) { return binary_("mul_", self, other, mul_launch()); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("add.Tensor", TORCH_FN(add));
  m.impl("add_.Tensor", TORCH_FN(add_));
  m.impl("mul.out", TORCH_FN(mul_out));
  m.impl("mul.Tensor", TORCH_FN(mul));
  m.impl("mul_.Tensor", TORCH_FN(mul_));
}

}  // namespace npu::ops
