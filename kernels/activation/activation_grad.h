// Gradients of pointwise activations from (grad_output, x or y): each result
// is computed in opmath (float for float16/bfloat16) and rounded once, as
// PyTorch's CPU kernels do.
#pragma once

#include "kernels/activation/activation.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

enum class ActivationGrad {
  Sigmoid,  // second operand y = sigmoid(x): g * (1 - y) * y
  Tanh,     // second operand y = tanh(x):    g * (1 - y * y)
  Silu,     // second operand x:              g * s * (1 + x * (1 - s)), s = sigmoid(x)
  Gelu,     // second operand x:              g * (Phi(x) + x * phi(x))
  GeluTanh, // second operand x:              g * d/dx [x/2 * (1 + tanh(k(x + 0.044715 x^3)))]
  // The ones below read scalar arguments (ActivationParams, named as the
  // forward's in activation.h).
  Elu,          // second operand x: x > 0 ? g * scale : g * input_scale * alpha * scale * exp(x * input_scale)
  EluResult,    // second operand y = elu(x): y > 0 ? g * scale : g * input_scale * (y + alpha * scale)
  LeakyRelu,    // second operand x: x > 0 ? g : g * slope
  Hardsigmoid,  // second operand x: -3 < x < 3 ? g / 6 : 0
  Hardswish,    // second operand x: x <= -3 ? 0 : x < 3 ? g * (x / 3 + 1/2) : g
  Hardtanh,     // second operand x: x <= lo || x >= hi ? 0 : g
  Softplus,     // second operand x: beta * x > threshold ? g : g * z / (z + 1), z = exp(beta * x)
  Mish,         // second operand x: g * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(softplus(x))
  Shrink,       // second operand x: |x| <= lambd ? 0 : g (hardshrink's and softshrink's)
  Logit,        // second operand x: g / (x (1 - x)); eps >= 0: 0 outside [eps, 1 - eps]; eps < 0: NaN outside [0, 1]
};

// grad_output and the second operand broadcast to out's shape and are
// converted to out's (floating) dtype.
void activation_grad(ActivationGrad fn, const TensorView& out, const TensorView& grad_output,
                     const TensorView& operand, const ActivationParams& params = {});

// log_sigmoid's gradient from the forward's input and buffer (exp(-|x|)):
// g * ((x < 0 ? 1 : 0) - (x < 0 ? 1 : -1) * z / (1 + z)).
void log_sigmoid_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                          const TensorView& buffer);

// glu's gradient: out has self's shape; for self's halves a, b along dim,
// out's first half = g * sigmoid(b), its second = g * a * sigmoid(b) * (1 - sigmoid(b)).
void glu_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self, int64_t dim);

// prelu's gradients at the broadcast shape of self and weight:
// grad_input = x > 0 ? g : w * g, grad_weight = x > 0 ? 0 : x * g.
void prelu_backward(const TensorView& grad_input, const TensorView& grad_weight, const TensorView& grad_output,
                    const TensorView& self, const TensorView& weight);

}  // namespace npu::kernels
