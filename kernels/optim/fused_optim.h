// Fused optimizer steps over tensor lists: each element of each parameter
// is read and written once per step. float16/bfloat16 tensors compute in
// float, the hyper-parameters as PyTorch's fused CPU kernels take them.
// `grad_scale` (when set) divides every gradient first, the unscaled
// gradient being stored back into grads, as PyTorch does.
#pragma once

#include <optional>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The tensors of one parameter; a step count (after this step's increment)
// where the optimizer keeps one.
struct OptimItem {
  TensorView param;
  TensorView grad;
  TensorView state1;  // Adam: exp_avg; SGD: momentum buffer (may be empty); Adagrad: state_sum
  TensorView state2;  // Adam: exp_avg_sq
  TensorView state3;  // Adam with amsgrad: max_exp_avg_sq
  double step = 0.0;
};

struct AdamConfig {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize;
  bool decoupled_weight_decay;  // AdamW: param *= 1 - lr * weight_decay instead of grad += weight_decay * param
};
void fused_adam(const std::vector<OptimItem>& items, const AdamConfig& cfg, std::optional<float> grad_scale);

struct SgdConfig {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize, is_first_step;
};
void fused_sgd(const std::vector<OptimItem>& items, const SgdConfig& cfg, std::optional<float> grad_scale);

struct AdagradConfig {
  double lr, lr_decay, weight_decay, eps;
  bool maximize;
};
void fused_adagrad(const std::vector<OptimItem>& items, const AdagradConfig& cfg, std::optional<float> grad_scale);

}  // namespace npu::kernels
