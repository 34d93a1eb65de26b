// The fused optimizer schemas of ops/table/optim.yaml (_fused_adam_,
// _fused_adamw_, _fused_sgd_, _fused_adagrad_, each also with a tensor lr,
// whose generated wrappers call these functions): one aclnn launch steps
// every parameter. Lists the entries cannot take
// (tensors on other devices or in private formats, non-floating dtypes,
// mixed shapes along a position) run through the CPU fallback, counted.
#include <optional>
#include <vector>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/foreach_route.h"
#include "dispatch/ops/fused_optim.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

namespace caps = table::caps;
using at::TensorList;
using OptionalTensor = std::optional<at::Tensor>;

// A 1-element tensor on `device` in a base format (step counts, grad_scale,
// found_inf): what the entries read when their task runs.
bool device_value(const at::Tensor& t, c10::Device device) {
  return t.defined() && t.numel() == 1 && t.device() == device && !at::isComplexType(t.scalar_type()) &&
         !any_private_format(t);
}

bool optional_float(const OptionalTensor& t, c10::Device device) {
  return !t || !t->defined() || (device_value(*t, device) && t->scalar_type() == at::kFloat);
}

// Whether the lists shaped like the parameters (params first), the step
// counts and the optional scale tensors can go to one launch.
bool fused_native(std::initializer_list<TensorList> shaped, TensorList steps, const OptionalTensor& grad_scale,
                  const OptionalTensor& found_inf) {
  if (!foreach_fast_route(shaped, true)) return false;
  const c10::Device device = shaped.begin()->front().device();
  if (steps.size() != 0 && steps.size() != shaped.begin()->size()) return false;
  for (const at::Tensor& s : steps) {
    if (!device_value(s, device)) return false;
  }
  return optional_float(grad_scale, device) && optional_float(found_inf, device);
}

OptionalTensor defined_or_null(const OptionalTensor& t) { return t && t->defined() ? t : std::nullopt; }

}  // namespace

double lr_value(const at::Tensor& lr) {
  TORCH_CHECK(lr.numel() == 1, "lr must be a 1-element tensor, got ", lr.numel(), " elements");
  return lr.item<double>();
}

void fused_adam(const char* schema, bool decoupled, TensorList self, TensorList grads, TensorList exp_avgs,
          TensorList exp_avg_sqs, TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
          double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
          const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  if (self.empty()) return;
  const bool shaped_ok =
      amsgrad ? fused_native({self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs}, state_steps, grad_scale, found_inf)
              : fused_native({self, grads, exp_avgs, exp_avg_sqs}, state_steps, grad_scale, found_inf);
  if (!shaped_ok || state_steps.size() != self.size() ||
      !run_native(caps::aclnnFusedAdam, schema, foreach_dtypes(self))) {
    fallback_call<void>(decoupled ? "_fused_adamw_" : "_fused_adam_", self, grads, exp_avgs, exp_avg_sqs,
                        max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize,
                        grad_scale, found_inf);
    return;
  }
  const ListDeviceGuard guard(self);
  NPU_RUN(aclnnFusedAdam, at::ITensorListRef(self), at::ITensorListRef(grads), at::ITensorListRef(exp_avgs),
          at::ITensorListRef(exp_avg_sqs), at::ITensorListRef(max_exp_avg_sqs),
          at::ITensorListRef(state_steps), lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled,
          defined_or_null(grad_scale), defined_or_null(found_inf));
}

void fused_sgd(const char* schema, TensorList self, TensorList grads, TensorList momentum_buffer_list,
         double weight_decay, double momentum, double lr, double dampening, bool nesterov, bool maximize,
         bool is_first_step, const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  if (self.empty()) return;
  const bool shaped_ok = momentum != 0
                             ? fused_native({self, grads, momentum_buffer_list}, {}, grad_scale, found_inf)
                             : fused_native({self, grads}, {}, grad_scale, found_inf);
  if (!shaped_ok || !run_native(caps::aclnnFusedSgd, schema, foreach_dtypes(self))) {
    fallback_call<void>("_fused_sgd_", self, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening,
                        nesterov, maximize, is_first_step, grad_scale, found_inf);
    return;
  }
  const ListDeviceGuard guard(self);
  NPU_RUN(aclnnFusedSgd, at::ITensorListRef(self), at::ITensorListRef(grads),
          at::ITensorListRef(momentum_buffer_list), weight_decay, momentum, lr, dampening,
          nesterov, maximize, is_first_step, defined_or_null(grad_scale), defined_or_null(found_inf));
}

void fused_adagrad(const char* schema, TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,
             double lr, double lr_decay, double weight_decay, double eps, bool maximize,
             const OptionalTensor& grad_scale, const OptionalTensor& found_inf) {
  if (self.empty()) return;
  if (!fused_native({self, grads, state_sums}, state_steps, grad_scale, found_inf) ||
      state_steps.size() != self.size() || !run_native(caps::aclnnFusedAdagrad, schema, foreach_dtypes(self))) {
    fallback_call<void>("_fused_adagrad_", self, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps,
                        maximize, grad_scale, found_inf);
    return;
  }
  const ListDeviceGuard guard(self);
  NPU_RUN(aclnnFusedAdagrad, at::ITensorListRef(self), at::ITensorListRef(grads), at::ITensorListRef(state_sums),
          at::ITensorListRef(state_steps), lr, lr_decay, weight_decay, eps, maximize, defined_or_null(grad_scale),
          defined_or_null(found_inf));
}

}  // namespace npu::ops
