// Task makers of the softmax family (ops/table/softmax.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out = softmax(self, dim), or log_softmax when `log`.
TaskBody softmax_task(bool log, const aclTensor* self, int64_t dim, aclTensor* out);
// The gradient of softmax / log_softmax from their output.
TaskBody softmax_backward_task(bool log, const aclTensor* gradOutput, const aclTensor* output, int64_t dim,
                               aclTensor* out);

}  // namespace npu::emu
