// Task makers of the attention family (ops/table/attention.yaml).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out, logSumExp = fused scaled dot-product attention (kernels/attention/attention.h).
TaskBody fused_attention_task(const aclTensor* query, const aclTensor* key, const aclTensor* value,
                              const aclTensor* attnBiasOptional, double scaleValue, bool isCausal, double dropoutP,
                              int64_t seed, int64_t offset, aclTensor* out, aclTensor* logSumExp);

// Its gradients with respect to query, key and value.
TaskBody fused_attention_backward_task(const aclTensor* gradOut, const aclTensor* query, const aclTensor* key,
                                       const aclTensor* value, const aclTensor* attnBiasOptional,
                                       const aclTensor* out, const aclTensor* logSumExp, double scaleValue,
                                       bool isCausal, double dropoutP, int64_t seed, int64_t offset,
                                       aclTensor* gradQuery, aclTensor* gradKey, aclTensor* gradValue);

// CANN's aclnnFlashAttentionScore / aclnnFlashAttentionScoreGrad
// (emulator/ops/flash_attention.cpp): layouts BNSD, BSND, BSH and SBH,
// sparseMode 0-3, no positional shift, keepProb 1. The entries pass what both
// directions read as one FlashAttentionArgs (CANN's parameters of those
// names; pse is realShiftOptional / pseShiftOptional) and leave out what is
// not read: paddingMaskOptional and softmaxOutOut/softmaxInOptional (reserved
// by CANN), prefixOptional (sparseMode 5/6 only, which are refused) and
// innerPrecise (the chip's precision mode: results here are always
// float-accurate).
struct FlashAttentionArgs {
  const aclTensor *query, *key, *value;
  const aclTensor *pse, *dropMask, *attenMask;
  double scaleValue, keepProb;
  int64_t preTokens, nextTokens, headNum;
  const char* inputLayout;
  int64_t sparseMode;
};
TaskBody flash_attention_score_task(const FlashAttentionArgs& args, const aclTensor* softmaxMaxOut,
                                    const aclTensor* softmaxSumOut, const aclTensor* attentionOutOut);
TaskBody flash_attention_score_grad_task(const FlashAttentionArgs& args, const aclTensor* dy,
                                         const aclTensor* softmaxMaxOptional, const aclTensor* softmaxSumOptional,
                                         const aclTensor* attentionInOptional, const aclTensor* dqOut,
                                         const aclTensor* dkOut, const aclTensor* dvOut, const aclTensor* dpseOut);

}  // namespace npu::emu
