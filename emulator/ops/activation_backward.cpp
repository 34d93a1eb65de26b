// The activation-backward family's task makers (kernels/activation/).
#include "emulator/ops/activation_backward.h"

#include <array>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "emulator/ops/activation.h"
#include "kernels/activation/threshold.h"

namespace npu::emu {

namespace kn = kernels;

TaskBody threshold_task(const aclTensor* self, const aclScalar* threshold, const aclScalar* value, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_scalar(threshold, "threshold");
  require_scalar(value, "value");
  reject_complex(out, "out");
  require_dtype(out, "out", "a real, non-bool tensor", [](kn::DType d) { return d != kn::DType::Bool; });
  require_shape(out, self->view_dims, "out");
  return [v, th = threshold->value(), val = value->value()] { kn::threshold(v[1], v[0], th, val); };
}

TaskBody threshold_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclScalar* threshold,
                                 aclTensor* out) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {self, "self"}, {out, "out"}}});
  require_scalar(threshold, "threshold");
  reject_complex(out, "out");
  require_dtype(out, "out", "a real, non-bool tensor", [](kn::DType d) { return d != kn::DType::Bool; });
  require_broadcast_shape(out, "out", v[0].sizes, v[1].sizes, "gradOutput and self");
  return [v, th = threshold->value()] { kn::threshold_backward(v[2], v[0], v[1], th); };
}

namespace {

// The views of (gradOutput, operand, out) once out is checked to be real
// floating with their broadcast shape.
std::array<kn::TensorView, 3> grad_views(const aclTensor* gradOutput, const aclTensor* operand, aclTensor* out) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {operand, "operand"}, {out, "out"}}});
  require_floating(out, "out");
  reject_complex(out, "out");
  require_broadcast_shape(out, "out", v[0].sizes, v[1].sizes, "gradOutput and the activation's operand");
  return v;
}

kn::Scalar scalar_or_zero(const aclScalar* s, const char* name) {
  if (s == nullptr) return kn::Scalar::from_double(0.0);
  require_scalar(s, name);
  return s->value();
}

}  // namespace

TaskBody activation_grad_task(kernels::ActivationGrad fn, const aclTensor* gradOutput, const aclTensor* operand,
                              aclTensor* out) {
  return activation_grad_task(fn, gradOutput, operand, nullptr, nullptr, out);
}

TaskBody activation_grad_task(kernels::ActivationGrad fn, const aclTensor* gradOutput, const aclTensor* operand,
                              const aclScalar* a, const aclScalar* b, aclTensor* out) {
  const auto v = grad_views(gradOutput, operand, out);
  kn::ActivationParams p;
  p.a = scalar_or_zero(a, "scalar argument");
  p.b = scalar_or_zero(b, "scalar argument");
  return [fn, v, p] { kn::activation_grad(fn, v[2], v[0], v[1], p); };
}

TaskBody elu_backward_task(const aclTensor* gradOutput, const aclScalar* alpha, const aclScalar* scale,
                           const aclScalar* inputScale, bool isResult, const aclTensor* selfOrResult,
                           aclTensor* gradInput) {
  const auto v = grad_views(gradOutput, selfOrResult, gradInput);
  require_scalar(alpha, "alpha");
  require_scalar(scale, "scale");
  require_scalar(inputScale, "inputScale");
  const kn::ActivationParams p{alpha->value(), scale->value(), inputScale->value()};
  const auto fn = isResult ? kn::ActivationGrad::EluResult : kn::ActivationGrad::Elu;
  return [fn, v, p] { kn::activation_grad(fn, v[2], v[0], v[1], p); };
}

TaskBody log_sigmoid_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* buffer,
                                   aclTensor* gradInput) {
  const auto v = require_views<4>(
      {{{gradOutput, "gradOutput"}, {self, "self"}, {buffer, "buffer"}, {gradInput, "gradInput"}}});
  require_floating(gradInput, "gradInput");
  reject_complex(gradInput, "gradInput");
  require_shape(buffer, self->view_dims, "buffer");
  require_broadcast_shape(gradInput, "gradInput", v[0].sizes, v[1].sizes, "gradOutput and self");
  return [v] { kn::log_sigmoid_backward(v[3], v[0], v[1], v[2]); };
}

TaskBody glu_backward_task(const aclTensor* gradOut, const aclTensor* self, int64_t dim, aclTensor* out) {
  const auto v = require_views<3>({{{gradOut, "gradOut"}, {self, "self"}, {out, "out"}}});
  require_floating(out, "out");
  reject_complex(out, "out");
  const int64_t d = glu_dim(dim, self);
  require_shape(out, self->view_dims, "out");
  auto half = self->view_dims;
  half[static_cast<std::size_t>(d)] /= 2;
  require_shape(gradOut, half, "gradOut");
  return [v, d] { kn::glu_backward(v[2], v[0], v[1], d); };
}

TaskBody prelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* weight,
                             aclTensor* gradInput, aclTensor* gradWeight) {
  const auto v = require_views<5>({{{gradOutput, "gradOutput"},
                                    {self, "self"},
                                    {weight, "weight"},
                                    {gradInput, "gradInput"},
                                    {gradWeight, "gradWeight"}}});
  require_floating(gradInput, "gradInput");
  reject_complex(gradInput, "gradInput");
  try {
    const kn::Shape shape = kn::broadcast_shapes(kn::broadcast_shapes(v[1].sizes, v[2].sizes), v[0].sizes);
    require_shape(gradInput, shape, "gradInput");
    require_shape(gradWeight, shape, "gradWeight");
  } catch (const kn::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("gradOutput, self and weight do not broadcast: ") + e.what());
  }
  if (gradWeight->dtype != gradInput->dtype) fail_dtype(gradWeight, "gradWeight", "gradInput's dtype");
  return [v] { kn::prelu_backward(v[3], v[4], v[0], v[1], v[2]); };
}

TaskBody logit_grad_task(const aclTensor* x, const aclTensor* dy, double eps, aclTensor* out) {
  const auto v = grad_views(dy, x, out);
  kn::ActivationParams p;
  p.a = kn::Scalar::from_double(eps);
  return [v, p] { kn::activation_grad(kn::ActivationGrad::Logit, v[2], v[0], v[1], p); };
}

TaskBody gelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, const char* approximate,
                            aclTensor* gradInput) {
  if (approximate == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "approximate is null");
  const std::string mode(approximate);
  if (mode != "none" && mode != "tanh") {
    fail(ACLNN_ERR_PARAM_INVALID, "approximate must be \"none\" or \"tanh\", got \"" + mode + "\"");
  }
  return activation_grad_task(mode == "tanh" ? kn::ActivationGrad::GeluTanh : kn::ActivationGrad::Gelu, gradOutput,
                              self, gradInput);
}

}  // namespace npu::emu
