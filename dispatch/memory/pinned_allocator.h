// Page-locked host memory (aclrtMallocHost): what pin_memory() returns and
// what lets non-blocking copies stay asynchronous.
#pragma once

#include <c10/core/Allocator.h>

namespace npu {

c10::Allocator& pinned_allocator();
// True when `ptr` points into a live pinned allocation of this process.
bool is_pinned(const void* ptr);

}  // namespace npu
