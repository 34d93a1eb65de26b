// Task maker of aclnnNpuFormatCast (ops/table/format_cast.yaml): both
// tensors arrive in their own formats (the row lists them under `formats`).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// dstTensor = srcTensor re-laid in dstTensor's format (same dims and dtype).
TaskBody format_cast_task(const aclTensor* srcTensor, aclTensor* dstTensor);

}  // namespace npu::emu
