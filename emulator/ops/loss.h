// Task makers of the loss family (ops/table/loss.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// nll_loss (two_d false: self [N, C] or [C]) and nll_loss2d (self [N, C, H, W]).
// reduction: 0 none, 1 mean, 2 sum.
TaskBody nll_loss_task(bool two_d, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                       int64_t reduction, int64_t ignoreIndex, aclTensor* out, aclTensor* totalWeight);
TaskBody nll_loss_backward_task(bool two_d, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* target, const aclTensor* weight, int64_t reduction,
                                int64_t ignoreIndex, const aclTensor* totalWeight, aclTensor* out);

}  // namespace npu::emu
