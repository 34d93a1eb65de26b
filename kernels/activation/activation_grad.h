// Gradients of pointwise activations from (grad_output, x or y): each result
// is computed in opmath (float for float16/bfloat16) and rounded once, as
// PyTorch's CPU kernels do.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

enum class ActivationGrad {
  Sigmoid,  // second operand y = sigmoid(x): g * (1 - y) * y
  Tanh,     // second operand y = tanh(x):    g * (1 - y * y)
  Silu,     // second operand x:              g * s * (1 + x * (1 - s)), s = sigmoid(x)
  Gelu,     // second operand x:              g * (Phi(x) + x * phi(x))
  GeluTanh, // second operand x:              g * d/dx [x/2 * (1 + tanh(k(x + 0.044715 x^3)))]
};

// grad_output and the second operand broadcast to out's shape and are
// converted to out's (floating) dtype.
void activation_grad(ActivationGrad fn, const TensorView& out, const TensorView& grad_output,
                     const TensorView& operand);

}  // namespace npu::kernels
