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

// Layer norm over the trailing dims normalizedShape names (kernels/norm/row_norm.h).
TaskBody layer_norm_task(const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weight,
                         const aclTensor* bias, double eps, aclTensor* out, aclTensor* meanOut, aclTensor* rstdOut);

// outputMask (null: every output that is given) selects gradInput, gradWeight, gradBias.
TaskBody layer_norm_backward_task(const aclTensor* gradOut, const aclTensor* input,
                                  const aclIntArray* normalizedShape, const aclTensor* mean, const aclTensor* rstd,
                                  const aclTensor* weight, const aclTensor* bias, const aclBoolArray* outputMask,
                                  aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias);

// Group norm of self read as [N, C, HxW] (kernels/norm/group_norm.h).
TaskBody group_norm_task(const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t n, int64_t c,
                         int64_t hxw, int64_t group, double eps, aclTensor* out, aclTensor* meanOut,
                         aclTensor* rstdOut);

TaskBody group_norm_backward_task(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                                  const aclTensor* rstd, const aclTensor* gamma, int64_t n, int64_t c, int64_t hxw,
                                  int64_t group, const aclBoolArray* outputMask, aclTensor* gradInput,
                                  aclTensor* gradGamma, aclTensor* gradBeta);

// RMS norm over the trailing dims gamma spans: gamma is required, as in
// CANN (PyTorch's weight=None passes ones).
TaskBody rms_norm_task(const aclTensor* x, const aclTensor* gamma, double epsilon, const aclTensor* yOut,
                       const aclTensor* rstdOut);

// Either output may be null (not computed).
TaskBody rms_norm_grad_task(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* gamma,
                            const aclTensor* dxOut, const aclTensor* dgammaOut);

}  // namespace npu::emu
