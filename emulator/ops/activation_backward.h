// Task makers of the activation-backward family (ops/table/activation_backward.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out = self <= threshold ? value : self (the forward beside its backward).
TaskBody threshold_task(const aclTensor* self, const aclScalar* threshold, const aclScalar* value, aclTensor* out);

// out = self <= threshold ? 0 : gradOutput (relu's backward with threshold 0).
TaskBody threshold_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclScalar* threshold,
                                 aclTensor* out);

}  // namespace npu::emu
