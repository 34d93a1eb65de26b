// The device allocator PyTorch uses for npu tensors (registered for
// PrivateUse1): a caching allocator with one DeviceCachingAllocator per
// device. Device memory comes only from aclrtMalloc/aclrtFree.
#pragma once

#include <vector>

#include <c10/core/CachingDeviceAllocator.h>

#include "acl/acl_base.h"
#include "dispatch/memory/device_caching_allocator.h"

namespace npu {

// The process's npu allocator (also what c10::GetAllocator(PrivateUse1) returns).
c10::DeviceAllocator& npu_allocator();

namespace memory {

// The caching allocator of `device` (a visible device index).
DeviceCachingAllocator& device_allocator(c10::DeviceIndex device);

// Every device's segments, for memory_snapshot.
std::vector<SegmentSnapshot> snapshot_all_devices();

// caching_allocator_alloc/delete: `size` bytes on `device` for use on
// `stream` (nullptr: the device's current stream); freed by raw_delete.
void* raw_alloc(std::size_t size, c10::DeviceIndex device, aclrtStream stream);
void raw_delete(void* ptr);  // throws when `ptr` is not a live npu allocation

}  // namespace memory
}  // namespace npu
