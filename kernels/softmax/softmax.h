// softmax / log_softmax along one dim, forward and backward. Reduced floats
// and float compute in float, double in double, each result rounding once
// into the output, as PyTorch's CPU kernels do. Any strides; `dim` must be
// wrapped (0 for a 0-dim tensor, which has one element per row).
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out = softmax(in, dim), or log_softmax when `log`; out has in's shape.
void softmax(const TensorView& out, const TensorView& in, int64_t dim, bool log);

// grad_input of softmax (output = softmax(x)): output * (grad - sum(grad * output));
// of log_softmax (output = log_softmax(x)): grad - exp(output) * sum(grad).
void softmax_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& output,
                      int64_t dim, bool log);

}  // namespace npu::kernels
