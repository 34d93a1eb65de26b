// Task makers of the loss family (ops/table/loss.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/loss/pointwise_loss.h"

namespace npu::emu {

using PointwiseLoss = kernels::PointwiseLoss;

// nll_loss (two_d false: self [N, C] or [C]) and nll_loss2d (self [N, C, H, W]).
// reduction: 0 none, 1 mean, 2 sum.
TaskBody nll_loss_task(bool two_d, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                       int64_t reduction, int64_t ignoreIndex, aclTensor* out, aclTensor* totalWeight);
TaskBody nll_loss_backward_task(bool two_d, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* target, const aclTensor* weight, int64_t reduction,
                                int64_t ignoreIndex, const aclTensor* totalWeight, aclTensor* out);

// Element-wise losses (kernels/loss/pointwise_loss.h): self and target (and
// weight) broadcast; out has their broadcast shape for reduction none, else
// one element. param is beta (smooth_l1) or delta (huber).
TaskBody pointwise_loss_task(kernels::PointwiseLoss fn, const aclTensor* self, const aclTensor* target,
                             const aclTensor* weight, double param, int64_t reduction, aclTensor* out);
// binary_cross_entropy_with_logits: weight and posWeight broadcast to the
// shape of self and target.
TaskBody bce_with_logits_task(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                              const aclTensor* posWeight, int64_t reduction, aclTensor* out);
TaskBody pointwise_loss_backward_task(kernels::PointwiseLoss fn, const aclTensor* gradOutput, const aclTensor* self,
                                      const aclTensor* target, const aclTensor* weight, double param,
                                      int64_t reduction, aclTensor* gradInput);

// Margin losses over [N, C] or [C] scores (kernels/loss/margin_loss.h).
TaskBody multi_margin_loss_task(const aclTensor* self, const aclTensor* target, int64_t p, double margin,
                                const aclTensor* weight, int64_t reduction, aclTensor* out);
TaskBody multi_margin_loss_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                                         int64_t p, double margin, const aclTensor* weight, int64_t reduction,
                                         aclTensor* gradInput);
TaskBody multilabel_margin_loss_task(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                     aclTensor* out, aclTensor* isTarget);
TaskBody multilabel_margin_loss_backward_task(const aclTensor* gradOutput, const aclTensor* self,
                                              const aclTensor* target, int64_t reduction, const aclTensor* isTarget,
                                              aclTensor* gradInput);

}  // namespace npu::emu
