// Task makers of the padding family (ops/table/pad.yaml): reflection and
// replication pads of the `rank` trailing dims, forward and backward.
// `padding` lists (begin, end) pairs, last dim first, as aten does.
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/pad/pad.h"

namespace npu::emu {

using kernels::PadMode;

TaskBody pad_task(PadMode mode, int64_t rank, const aclTensor* self, const aclIntArray* padding, aclTensor* out);
TaskBody pad_backward_task(PadMode mode, int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                           const aclIntArray* padding, aclTensor* gradInput);

}  // namespace npu::emu
