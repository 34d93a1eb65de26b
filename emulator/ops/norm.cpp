// The normalization family's task makers (kernels/norm/batch_norm.h).
#include "emulator/ops/norm.h"

#include <optional>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/norm/batch_norm.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

std::optional<kn::TensorView> optional_view(const aclTensor* t) {
  if (t == nullptr) return std::nullopt;
  return t->view();
}

const kn::TensorView* ptr(const std::optional<kn::TensorView>& v) { return v ? &*v : nullptr; }

// A [C] parameter: absent, or C elements in one dim.
void require_channels(const aclTensor* t, int64_t c, const char* name) {
  if (t == nullptr) return;
  const kn::TensorView v = t->view();
  if (v.dim() != 1 || v.sizes[0] != c) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have shape [" + std::to_string(c) + "], got " +
                                      kn::shape_str(v.sizes));
  }
  if (!model::is_floating_point(v.dtype) || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a floating point tensor");
  }
}

int64_t channels_of(const aclTensor* input) {
  require_tensor(input, "input");
  const kn::TensorView v = input->view();
  if (v.dim() < 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "input must have at least 2 dims ([N, C, ...]), got " + kn::shape_str(v.sizes));
  }
  if (!model::is_floating_point(v.dtype) || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, "input must be a floating point tensor");
  }
  return v.sizes[1];
}

}  // namespace

TaskBody batch_norm_task(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                         aclTensor* runningMean, aclTensor* runningVar, bool training, double momentum, double eps,
                         aclTensor* output, aclTensor* saveMean, aclTensor* saveInvstd) {
  const int64_t c = channels_of(input);
  require_tensor(output, "output");
  require_shape(output, input->view_dims, "output");
  require_channels(weight, c, "weight");
  require_channels(bias, c, "bias");
  require_channels(runningMean, c, "runningMean");
  require_channels(runningVar, c, "runningVar");
  if (!training && (runningMean == nullptr || runningVar == nullptr)) {
    fail(ACLNN_ERR_PARAM_NULLPTR, "runningMean and runningVar are required when training is false");
  }
  if (training) {
    require_channels(saveMean, c, "saveMean");
    require_channels(saveInvstd, c, "saveInvstd");
  }
  return [in = input->view(), out = output->view(), w = optional_view(weight), b = optional_view(bias),
          rm = optional_view(runningMean), rv = optional_view(runningVar), sm = optional_view(saveMean),
          si = optional_view(saveInvstd), training, momentum, eps] {
    kn::BatchNormForward a;
    a.weight = ptr(w);
    a.bias = ptr(b);
    a.running_mean = ptr(rm);
    a.running_var = ptr(rv);
    a.training = training;
    a.momentum = momentum;
    a.eps = eps;
    a.save_mean = training ? ptr(sm) : nullptr;
    a.save_invstd = training ? ptr(si) : nullptr;
    kn::batch_norm(out, in, a);
  };
}

TaskBody batch_norm_backward_task(const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight,
                                  const aclTensor* runningMean, const aclTensor* runningVar,
                                  const aclTensor* saveMean, const aclTensor* saveInvstd, bool training, double eps,
                                  const aclBoolArray* outputMask, aclTensor* gradInput, aclTensor* gradWeight,
                                  aclTensor* gradBias) {
  const int64_t c = channels_of(input);
  require_tensor(gradOut, "gradOut");
  require_shape(gradOut, input->view_dims, "gradOut");
  require_channels(weight, c, "weight");
  if (training) {
    require_tensor(saveMean, "saveMean");
    require_tensor(saveInvstd, "saveInvstd");
    require_channels(saveMean, c, "saveMean");
    require_channels(saveInvstd, c, "saveInvstd");
  } else {
    require_tensor(runningMean, "runningMean");
    require_tensor(runningVar, "runningVar");
    require_channels(runningMean, c, "runningMean");
    require_channels(runningVar, c, "runningVar");
  }
  bool want[3] = {gradInput != nullptr, gradWeight != nullptr, gradBias != nullptr};
  if (outputMask != nullptr) {
    if (outputMask->values.size() != 3) {
      fail(ACLNN_ERR_PARAM_INVALID, "outputMask must have 3 elements, got " + std::to_string(outputMask->values.size()));
    }
    const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
    aclTensor* outs[3] = {gradInput, gradWeight, gradBias};
    for (int i = 0; i < 3; ++i) {
      if (outputMask->values[i] && outs[i] == nullptr) {
        fail(ACLNN_ERR_PARAM_NULLPTR, std::string(names[i]) + " is null but outputMask asks for it");
      }
      want[i] = outputMask->values[i];
    }
  }
  if (want[0]) require_shape(gradInput, input->view_dims, "gradInput");
  if (want[1]) require_channels(gradWeight, c, "gradWeight");
  if (want[2]) require_channels(gradBias, c, "gradBias");
  return [g = gradOut->view(), in = input->view(), w = optional_view(weight), rm = optional_view(runningMean),
          rv = optional_view(runningVar), sm = optional_view(saveMean), si = optional_view(saveInvstd),
          gi = want[0] ? optional_view(gradInput) : std::nullopt,
          gw = want[1] ? optional_view(gradWeight) : std::nullopt,
          gb = want[2] ? optional_view(gradBias) : std::nullopt, training, eps] {
    kn::BatchNormBackward a;
    a.weight = ptr(w);
    a.running_mean = ptr(rm);
    a.running_var = ptr(rv);
    a.save_mean = ptr(sm);
    a.save_invstd = ptr(si);
    a.training = training;
    a.eps = eps;
    a.grad_input = ptr(gi);
    a.grad_weight = ptr(gw);
    a.grad_bias = ptr(gb);
    kn::batch_norm_backward(g, in, a);
  };
}

}  // namespace npu::emu
