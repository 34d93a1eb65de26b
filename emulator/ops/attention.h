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

}  // namespace npu::emu
