// Task makers of ops/table/torch_npu_extras.yaml: CANN entries the real
// torch_npu calls on the CANN stand-in that npu-emu's own backend serves
// otherwise (torch.equal as one launch).
#pragma once

#include "acl/acl_base.h"
#include "emulator/ops/reduce.h"  // aclnnMax is a reduce_task row
#include "emulator/task_body.h"

namespace npu::emu {

// out (bool, [1] or []) = self and other have the same shape and equal elements.
TaskBody equal_task(const aclTensor* self, const aclTensor* other, aclTensor* out);

}  // namespace npu::emu
