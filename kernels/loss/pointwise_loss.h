// Element-wise losses between a prediction and a target of broadcastable
// shapes, forward and backward: mse, smooth_l1, huber and binary cross
// entropy (with an optional weight broadcast to the same shape), and the
// forward of binary cross entropy with logits. The forward computes every
// element in the result dtype, rounding where CPU's kernel rounds (float16 /
// bfloat16 after each operation CPU does in that type), then sums in double
// for mean / sum. The backward computes in float (double for float64) and
// rounds once; its mean divides by self's element count, as PyTorch's CPU
// kernels do.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"
#include "kernels/loss/nll_loss.h"

namespace npu::kernels {

enum class PointwiseLoss {
  Mse,                 // (x - y)^2
  SmoothL1,            // |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta
  Huber,               // |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta)
  BinaryCrossEntropy,  // -(y log x + (1 - y) log(1 - x)), each log clamped at -100; x in [0, 1]
  BinaryCrossEntropyWithLogits,  // (1 - y) x - (1 + (pos_weight - 1) y) log_sigmoid(x); forward only
};

// out: the broadcast shape of self and target for None, else one element.
// `param` is beta (SmoothL1) or delta (Huber), unused otherwise; pos_weight
// (broadcast like weight) only for BinaryCrossEntropyWithLogits.
void pointwise_loss(const TensorView& out, const TensorView& self, const TensorView& target,
                    const TensorView* weight, PointwiseLoss fn, double param, LossReduction reduction,
                    const TensorView* pos_weight = nullptr);

// grad_input: the broadcast shape of self, target and grad_output.
void pointwise_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                             const TensorView& target, const TensorView* weight, PointwiseLoss fn, double param,
                             LossReduction reduction);

}  // namespace npu::kernels
