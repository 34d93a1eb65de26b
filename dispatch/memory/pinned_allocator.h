// Page-locked host memory (aclrtMallocHost): what pin_memory() returns and
// what lets non-blocking copies stay asynchronous.
#pragma once

#include <c10/core/Allocator.h>

#include "acl/acl_base.h"

namespace npu {

c10::Allocator& pinned_allocator();
// True when `ptr` points into a live pinned allocation of this process.
bool is_pinned(const void* ptr);

// Work queued on `stream` (an asynchronous copy) reads or writes the pinned
// block holding `ptr`: when the block's tensor dies before that work ran, the
// block is returned to ACL only afterwards. No-op for other pointers. The
// stream's device must be current.
void record_pinned_use(const void* ptr, aclrtStream stream);

}  // namespace npu
