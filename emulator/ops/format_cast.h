// Task maker of aclnnNpuFormatCast (ops/table/format_cast.yaml): both
// tensors arrive in their own formats (the row lists them under `formats`).
#pragma once

#include <functional>

#include "acl/acl_base.h"

namespace npu::emu {

// dstTensor = srcTensor re-laid in dstTensor's format (same dims and dtype).
std::function<void()> format_cast_task(const aclTensor* srcTensor, aclTensor* dstTensor);

}  // namespace npu::emu
