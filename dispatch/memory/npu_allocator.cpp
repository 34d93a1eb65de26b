#include "dispatch/memory/npu_allocator.h"

#include <c10/core/DeviceGuard.h>

#include "acl/acl_rt.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"

namespace npu {

namespace {

void free_device_memory(void* ptr) {
  if (ptr != nullptr && driver::loaded()) driver::driver().aclrtFree(ptr);
}

// Hands every request straight to aclrtMalloc.
class DirectAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const auto device = current_device();
    void* ptr = nullptr;
    if (nbytes > 0) {
      NPU_CHECK(aclrtMalloc, &ptr, nbytes, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    return {ptr, ptr, &free_device_memory, c10::Device(c10::DeviceType::PrivateUse1, device)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_device_memory; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    NPU_CHECK(aclrtMemcpy, dest, count, src, count, ACL_MEMCPY_DEVICE_TO_DEVICE);
  }

  bool initialized() override { return driver::loaded(); }
  void emptyCache(c10::MempoolId_t) override {}
  void recordStream(const c10::DataPtr&, c10::Stream) override {}
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex) override { return {}; }
  void resetAccumulatedStats(c10::DeviceIndex) override {}
  void resetPeakStats(c10::DeviceIndex) override {}
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, device));
    size_t free = 0, total = 0;
    NPU_CHECK(aclrtGetMemInfo, ACL_HBM_MEM, &free, &total);
    return {free, total};
  }
};

}  // namespace

c10::DeviceAllocator& npu_allocator() {
  static DirectAllocator allocator;
  return allocator;
}

void record_stream_for_allocator(const c10::DataPtr& data_ptr, c10::Stream stream) {
  npu_allocator().recordStream(data_ptr, stream);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &npu_allocator());

}  // namespace npu
