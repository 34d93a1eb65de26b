// The device allocator PyTorch uses for npu tensors (registered for
// PrivateUse1). Device memory comes only from aclrtMalloc/aclrtFree.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

namespace npu {

// The process's npu allocator (also what c10::GetAllocator(PrivateUse1) returns).
c10::DeviceAllocator& npu_allocator();

}  // namespace npu
