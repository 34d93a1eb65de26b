// Task makers of the normalization family (ops/table/norm.yaml): shapes are
// checked on the host; kernels/norm/ runs when the stream reaches the task.
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody batch_norm_task(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                         aclTensor* runningMean, aclTensor* runningVar, bool training, double momentum, double eps,
                         aclTensor* output, aclTensor* saveMean, aclTensor* saveInvstd);

// outputMask (null: every output that is given) selects gradInput, gradWeight, gradBias.
TaskBody batch_norm_backward_task(const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight,
                                  const aclTensor* runningMean, const aclTensor* runningVar,
                                  const aclTensor* saveMean, const aclTensor* saveInvstd, bool training, double eps,
                                  const aclBoolArray* outputMask, aclTensor* gradInput, aclTensor* gradWeight,
                                  aclTensor* gradBias);

}  // namespace npu::emu
