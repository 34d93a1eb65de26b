// Forward activations (ops/table/activation.yaml). Each element is computed
// in opmath (float for float16/bfloat16, as PyTorch's CPU kernels do) and
// rounded once into out's dtype, except logit, which CPU computes op by op in
// the element type (see Logit). Inputs are converted to out's dtype first.
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/random/random_ops.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The pointwise activations out = f(self); `ActivationParams` holds their
// scalar arguments (unused ones are ignored).
enum class Activation {
  Elu,          // x > 0 ? scale * x : alpha * scale * expm1(input_scale * x)
  LeakyRelu,    // x > 0 ? x : slope * x
  Hardsigmoid,  // clamp(x + 3, 0, 6) / 6
  Hardswish,    // x * clamp(x + 3, 0, 6) / 6
  Hardtanh,     // clamp(x, lo, hi), NaN kept
  Softplus,     // beta * x > threshold ? x : log1p(exp(beta * x)) / beta
  Mish,         // x * tanh(log1p(exp(x)))
  Hardshrink,   // |x| <= lambd ? 0 : x
  Softshrink,   // x > lambd ? x - lambd : x < -lambd ? x + lambd : 0 (NaN kept)
  Logit,        // log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps >= 0; each op rounded to T
};

// Scalar arguments, by activation:
//   Elu: a = alpha, b = scale, c = input_scale;  LeakyRelu: a = slope;
//   Hardtanh: a = lo, b = hi;  Softplus: a = beta, b = threshold;
//   Hard/Softshrink: a = lambd;  Logit: a = eps (< 0: no clamping).
struct ActivationParams {
  Scalar a = Scalar::from_double(0.0);
  Scalar b = Scalar::from_double(0.0);
  Scalar c = Scalar::from_double(0.0);
};

// out = f(self); out is a floating dtype (Hardtanh and LeakyRelu: any real
// non-bool dtype, as CPU's).
void activation(Activation fn, const ActivationParams& params, const TensorView& out, const TensorView& self);

// out = min(x, 0) - log1p(z) and buffer = z, z = exp(-|x|): PyTorch CPU's
// log_sigmoid_forward, whose backward reads the buffer.
void log_sigmoid_forward(const TensorView& out, const TensorView& buffer, const TensorView& self);

// out = a * sigmoid(b), a and b the halves of self along `dim` (wrapped).
void glu(const TensorView& out, const TensorView& self, int64_t dim);

// out = self > 0 ? self : weight * self; weight broadcasts to self.
void prelu(const TensorView& out, const TensorView& self, const TensorView& weight);

// rrelu: in training, for self[i] <= 0 a slope r ~ U[lower, upper) from
// element i's Philox block (the random kernels' contract), out = self * r
// and noise = r; elsewhere out = self, noise = 1. In evaluation out =
// leaky_relu(self, (lower + upper) / 2) and noise is left alone. noise has
// self's shape and out's dtype.
void rrelu_with_noise(const TensorView& out, const TensorView& noise, const TensorView& self, double lower,
                      double upper, bool training, PhiloxInputs rng);

// The two halves of `t` along `dim` (its size there must be even).
struct Halves {
  TensorView first, second;
};
Halves split_halves(const TensorView& t, int64_t dim);

}  // namespace npu::kernels
