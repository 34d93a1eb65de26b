// The backwards of the pointwise losses of dispatch/ops/loss_ops.cpp (mse,
// smooth_l1, huber: PyTorch gives them no meta function), one body for every
// loss and both forms. ops/table/loss.yaml's generated wrappers call them
// with the schema's name (the capability check and the fallback name it).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

namespace npu::ops {

enum class LossBackward { Mse, SmoothL1, Huber };

// param: smooth_l1's beta, huber's delta; mse takes none (0).
at::Tensor pointwise_loss_backward(LossBackward loss, const char* schema, const at::Tensor& grad_output,
                                   const at::Tensor& self, const at::Tensor& target, int64_t reduction, double param);
at::Tensor& pointwise_loss_backward_out(LossBackward loss, const char* schema, const at::Tensor& grad_output,
                                        const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                        double param, at::Tensor& grad_input);

}  // namespace npu::ops
