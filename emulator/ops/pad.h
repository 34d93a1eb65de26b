// Task makers of the padding family (ops/table/pad.yaml): reflection and
// replication pads of the `rank` trailing dims, forward and backward, and
// constant pads of any trailing dims.
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
// out = self padded with `value` (pad: (begin, end) pairs, last dim first;
// negative values crop).
TaskBody constant_pad_task(const aclTensor* self, const aclIntArray* pad, const aclScalar* value, aclTensor* out);

}  // namespace npu::emu
