// Task makers of torch_npu's simple fused ops that CANN serves with a
// dedicated aclnn op (ops/table/fused_simple.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out = self * sigmoid(1.702 self) (aclnnFastGelu).
TaskBody fast_gelu_task(const aclTensor* self, aclTensor* out);

// gradInput = gradOutput * fast_gelu'(self) (aclnnFastGeluBackward).
TaskBody fast_gelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput);

}  // namespace npu::emu
