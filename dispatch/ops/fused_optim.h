// The fused optimizer steps of dispatch/ops/fused_optim.cpp, one per
// optimizer, shared by its schemas: ops/table/optim.yaml's generated
// wrappers call them with the schema's name (the capability check and the
// fallback name it), AdamW's flag and the lr, read on the host from a tensor
// lr by lr_value.
#pragma once

#include <optional>

#include <ATen/core/Tensor.h>

namespace npu::ops {

// A tensor lr is read on the host, as PyTorch's CPU fused kernels read it (an
// lr on npu synchronizes its stream; the entries take lr as a double).
double lr_value(const at::Tensor& lr);

void fused_adam(const char* schema, bool decoupled, at::TensorList self, at::TensorList grads,
                at::TensorList exp_avgs, at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs,
                at::TensorList state_steps, double lr, double beta1, double beta2, double weight_decay, double eps,
                bool amsgrad, bool maximize, const std::optional<at::Tensor>& grad_scale,
                const std::optional<at::Tensor>& found_inf);

void fused_sgd(const char* schema, at::TensorList self, at::TensorList grads, at::TensorList momentum_buffer_list,
               double weight_decay, double momentum, double lr, double dampening, bool nesterov, bool maximize,
               bool is_first_step, const std::optional<at::Tensor>& grad_scale,
               const std::optional<at::Tensor>& found_inf);

void fused_adagrad(const char* schema, at::TensorList self, at::TensorList grads, at::TensorList state_sums,
                   at::TensorList state_steps, double lr, double lr_decay, double weight_decay, double eps,
                   bool maximize, const std::optional<at::Tensor>& grad_scale,
                   const std::optional<at::Tensor>& found_inf);

}  // namespace npu::ops
