// Task makers of torch_npu's fused LLM ops (ops/table/fused.yaml): CANN's
// aclnnAddRmsNorm, aclnnRotaryPositionEmbedding(+Grad), aclnnApplyRotaryPosEmb,
// aclnnSwiGlu(+Grad), aclnnScaledMaskedSoftmax(+Backward),
// aclnnMoeGatingTopKSoftmax and aclnnInplaceScatterUpdate. Shapes and dtypes
// are checked on the host; kernels/fused/ runs when the stream reaches the task.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody add_rms_norm_task(const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, double epsilon,
                           aclTensor* yOut, aclTensor* rstdOut, aclTensor* xOut);

TaskBody rotary_position_embedding_task(const aclTensor* x, const aclTensor* cos, const aclTensor* sin, int64_t mode,
                                        aclTensor* out);
TaskBody rotary_position_embedding_grad_task(const aclTensor* dy, const aclTensor* cos, const aclTensor* sin,
                                             const aclTensor* xOptional, int64_t mode, aclTensor* dxOut,
                                             aclTensor* dcosOut, aclTensor* dsinOut);
TaskBody apply_rotary_pos_emb_task(aclTensor* queryRef, aclTensor* keyRef, const aclTensor* cos,
                                   const aclTensor* sin, int64_t layout);

TaskBody swiglu_task(const aclTensor* x, int64_t dim, aclTensor* out);
TaskBody swiglu_grad_task(const aclTensor* yGrad, const aclTensor* x, int64_t dim, aclTensor* out);

TaskBody scaled_masked_softmax_task(const aclTensor* x, const aclTensor* mask, double scale, bool fixedTriuMask,
                                    aclTensor* y);
TaskBody scaled_masked_softmax_backward_task(const aclTensor* gradOutput, const aclTensor* y, const aclTensor* mask,
                                             double scale, bool fixTriuMask, aclTensor* out);

TaskBody moe_gating_top_k_softmax_task(const aclTensor* x, const aclTensor* finishedOptional, int64_t k,
                                       aclTensor* yOut, aclTensor* expertIdxOut, aclTensor* rowIdxOut);

TaskBody scatter_update_task(aclTensor* data, const aclTensor* indices, const aclTensor* updates, int64_t axis);

}  // namespace npu::emu
