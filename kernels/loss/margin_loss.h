// Class-score margin losses over [N, C] (or [C]) scores, forward and
// backward:
// - multi_margin_loss: per sample, sum over classes j != y of
//   max(0, margin - x[y] + x[j])^p (p 1 or 2), times weight[y], over C;
// - multilabel_margin_loss: targets list class indices up to the first -1;
//   per sample, sum over listed y and unlisted j of max(0, 1 - x[y] + x[j]),
//   over C; is_target marks the listed classes (1, else 0).
// Targets are int64; one outside [0, C) is a KernelError when the task runs.
// Sums run in double; results round once to self's dtype. The mean over an
// empty batch is nan (0 / 0).
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"
#include "kernels/loss/nll_loss.h"

namespace npu::kernels {

// out: [N] for reduction None with 2-dim self, else one element.
void multi_margin_loss(const TensorView& out, const TensorView& self, const TensorView& target, int64_t p,
                       double margin, const TensorView* weight, LossReduction reduction);
void multi_margin_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                                const TensorView& target, int64_t p, double margin, const TensorView* weight,
                                LossReduction reduction);

// is_target: target's shape, self's dtype.
void multilabel_margin_loss(const TensorView& out, const TensorView& is_target, const TensorView& self,
                            const TensorView& target, LossReduction reduction);
void multilabel_margin_loss_backward(const TensorView& grad_input, const TensorView& grad_output,
                                     const TensorView& self, const TensorView& target, LossReduction reduction,
                                     const TensorView& is_target);

}  // namespace npu::kernels
