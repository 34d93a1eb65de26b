// Task makers of the copy family (ops/table/copy.yaml): each checks one
// call's parameters on the host and returns the kernel task that writes
// selfRef (a copy, a fill, zeros).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// selfRef = src element by element: any strides, dtype converted, src broadcast.
TaskBody inplace_copy_task(aclTensor* selfRef, const aclTensor* src);
// selfRef[...] = value, converted to selfRef's dtype.
TaskBody fill_scalar_task(aclTensor* selfRef, const aclScalar* value);
// selfRef[...] = value's single element (read when the task runs).
TaskBody fill_tensor_task(aclTensor* selfRef, const aclTensor* value);
// selfRef[...] = 0.
TaskBody zero_task(aclTensor* selfRef);
// selfRef[...] = 1 (CANN's aclnnInplaceOne).
TaskBody one_task(aclTensor* selfRef);

}  // namespace npu::emu
