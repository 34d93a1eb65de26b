// Task makers of the copy family (ops/table/copy.yaml): each checks one
// call's parameters on the host and returns the kernel task that writes
// selfRef (a copy, a fill, zeros).
#pragma once

#include <functional>

#include "acl/acl_base.h"

namespace npu::emu {

// selfRef = src element by element: any strides, dtype converted, src broadcast.
std::function<void()> inplace_copy_task(aclTensor* selfRef, const aclTensor* src);
// selfRef[...] = value, converted to selfRef's dtype.
std::function<void()> fill_scalar_task(aclTensor* selfRef, const aclScalar* value);
// selfRef[...] = value's single element (read when the task runs).
std::function<void()> fill_tensor_task(aclTensor* selfRef, const aclTensor* value);
// selfRef[...] = 0.
std::function<void()> zero_task(aclTensor* selfRef);

}  // namespace npu::emu
