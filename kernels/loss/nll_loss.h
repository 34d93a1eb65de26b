// Negative log-likelihood loss over class scores, forward and backward, for
// nll_loss ([N, C] or [C] scores, [N] or [] targets) and nll_loss2d
// ([N, C, H, W] scores, [N, H, W] targets): the scores are viewed as
// [N, C, S] and the targets as [N, S]. Targets are int64 or uint8; a target
// equal to ignore_index contributes nothing; any other target outside
// [0, C) is a KernelError when the task runs. Arithmetic is in self's dtype
// in CPU's order (its cascade of partial sums for mean / sum), so float16
// and bfloat16 results round exactly as CPU's.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

enum class LossReduction : int64_t { None = 0, Mean = 1, Sum = 2 };

// out: the per-element losses (target's shape) for None, else one element;
// total_weight: one element, the summed weight of the counted targets.
void nll_loss(const TensorView& out, const TensorView& total_weight, const TensorView& self, const TensorView& target,
              const TensorView* weight, LossReduction reduction, int64_t ignore_index);

// grad_input (self's shape) of nll_loss; grad_output has out's shape.
void nll_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                       const TensorView& target, const TensorView* weight, LossReduction reduction,
                       int64_t ignore_index, const TensorView& total_weight);

}  // namespace npu::kernels
