// The activation-backward family's task makers (kernels/activation/).
#include "emulator/ops/activation_backward.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
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
  try {
    require_shape(out, kn::broadcast_shapes(v[0].sizes, v[1].sizes), "out");
  } catch (const kn::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("gradOutput and self do not broadcast: ") + e.what());
  }
  return [v, th = threshold->value()] { kn::threshold_backward(v[2], v[0], v[1], th); };
}

TaskBody activation_grad_task(kernels::ActivationGrad fn, const aclTensor* gradOutput, const aclTensor* operand,
                              aclTensor* out) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {operand, "operand"}, {out, "out"}}});
  require_floating(out, "out");
  reject_complex(out, "out");
  try {
    require_shape(out, kn::broadcast_shapes(v[0].sizes, v[1].sizes), "out");
  } catch (const kn::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("gradOutput and the activation's operand do not broadcast: ") + e.what());
  }
  return [fn, v] { kn::activation_grad(fn, v[2], v[0], v[1]); };
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
