// PrivateUse1HooksInterface: what generic PyTorch code asks of the npu
// backend (availability, generators, pinned memory, storage resizing).
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/DeviceGuard.h>

#include "dispatch/memory/npu_allocator.h"
#include "dispatch/memory/pinned_allocator.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_generator.h"

namespace npu {
namespace {

struct NpuHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  void init() const override {}

  c10::DeviceIndex deviceCount() const override { return device_count(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_device(device); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const auto prev = current_device();
    set_device(device);
    return prev;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override { return exchangeDevice(device); }

  const at::Generator& getDefaultGenerator(c10::DeviceIndex device) const override {
    return default_generator(device);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device) const override { return new_generator(device); }

  at::Device getDeviceFromPtr(void*) const override { return at::Device(c10::DeviceType::PrivateUse1, current_device()); }
  bool isPinnedPtr(const void* data) const override { return is_pinned(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return &pinned_allocator(); }

  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const override {
    c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
    const size_t old_bytes = impl->nbytes();
    c10::DeviceGuard guard(impl->device());
    c10::DataPtr fresh = npu_allocator().allocate(new_bytes);
    if (old_bytes > 0 && new_bytes > 0) {
      npu_allocator().copy_data(fresh.get(), impl->data(), std::min(old_bytes, new_bytes));
    }
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(new_bytes);
  }
};

// Registered at load time of the extension, before any npu tensor exists.
const bool g_registered = [] {
  static NpuHooks hooks;
  at::RegisterPrivateUse1HooksInterface(&hooks);
  return true;
}();

}  // namespace
}  // namespace npu
