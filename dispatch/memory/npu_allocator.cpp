#include "dispatch/memory/npu_allocator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <utility>

#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "acl/acl_rt.h"
#include "device_model/limits.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_stream.h"

namespace npu {

namespace memory {
namespace {

using model::kMaxDevices;

c10::Device npu_device(c10::DeviceIndex index) { return c10::Device(c10::DeviceType::PrivateUse1, index); }

// Everything the allocator keeps process-wide: the per-device allocators
// (each keeps its live allocations, data pointer -> block).
struct AllocatorState {
  std::array<std::once_flag, kMaxDevices> once;
  std::array<std::unique_ptr<DeviceCachingAllocator>, kMaxDevices> devices;
  // devices[i].get() once created: the lock-free path of every malloc/free.
  std::array<std::atomic<DeviceCachingAllocator*>, kMaxDevices> created{};
};

// Never destroyed: tensors may be freed during interpreter shutdown, after
// static destructors would have run.
AllocatorState& state() {
  static AllocatorState& s = *new AllocatorState();
  return s;
}

// Frees the live allocation at `ptr` of whichever device holds it: true
// when one did.
bool free_on_any_device(void* ptr) {
  for (auto& created : state().created) {
    DeviceCachingAllocator* a = created.load(std::memory_order_acquire);
    if (a != nullptr && a->free_live(ptr)) return true;
  }
  return false;
}

// A DataPtr's deleter (`device` < 0: the device is not known, every device
// is asked; the raw deleter).
void free_ptr_of(c10::DeviceIndex device, void* ptr) {
  // In a forked child the block belongs to the parent's runtime, which the
  // child must not touch: the memory is left as it is (it goes with the child).
  if (ptr == nullptr || in_bad_fork() || !driver::loaded()) return;
  try {
    if (device >= 0) {
      DeviceCachingAllocator* a = state().created[device].load(std::memory_order_acquire);
      if (a != nullptr) a->free_live(ptr);
    } else {
      free_on_any_device(ptr);
    }
  } catch (const std::exception& e) {
    // A deleter must not throw; the block stays out of the cache.
    TORCH_WARN("npu allocator: freeing ", ptr, " failed: ", e.what());
  }
}

void free_ptr(void* ptr) { free_ptr_of(-1, ptr); }

// The deleter of the tensors allocated on device D: it goes to D's
// allocator directly, with one lock (a DataPtr's deleter gets only the
// pointer).
template <c10::DeviceIndex D>
void free_ptr_on(void* ptr) {
  free_ptr_of(D, ptr);
}

template <std::size_t... I>
constexpr std::array<c10::DeleterFnPtr, kMaxDevices> make_device_deleters(std::index_sequence<I...>) {
  return {&free_ptr_on<static_cast<c10::DeviceIndex>(I)>...};
}
constexpr std::array<c10::DeleterFnPtr, kMaxDevices> kDeviceDeleters =
    make_device_deleters(std::make_index_sequence<kMaxDevices>());

bool is_npu_deleter(c10::DeleterFnPtr fn) {
  return fn == &free_ptr || std::find(kDeviceDeleters.begin(), kDeviceDeleters.end(), fn) != kDeviceDeleters.end();
}

Block* allocate_block(std::size_t size, c10::DeviceIndex device, aclrtStream stream) {
  return device_allocator(device).malloc(size, stream);
}

}  // namespace

DeviceCachingAllocator& device_allocator(c10::DeviceIndex device) {
  AllocatorState& s = state();
  if (device >= 0 && device < kMaxDevices) {
    // Created only for a device index that passed the checks below.
    if (DeviceCachingAllocator* a = s.created[device].load(std::memory_order_acquire)) return *a;
  }
  check_device_index(device);
  TORCH_CHECK(device < kMaxDevices, "npu allocator supports at most ", kMaxDevices, " devices");
  std::call_once(s.once[device], [&] {
    s.devices[device] = std::make_unique<DeviceCachingAllocator>(device);
    s.created[device].store(s.devices[device].get(), std::memory_order_release);
  });
  return *s.devices[device];
}

std::vector<SegmentSnapshot> snapshot_all_devices() {
  std::vector<SegmentSnapshot> all;
  for (c10::DeviceIndex d = 0; d < std::min<c10::DeviceIndex>(device_count(), kMaxDevices); ++d) {
    if (state().devices[d] == nullptr) continue;
    auto segments = state().devices[d]->snapshot();
    all.insert(all.end(), segments.begin(), segments.end());
  }
  return all;
}

void* raw_alloc(std::size_t size, c10::DeviceIndex device, aclrtStream stream) {
  if (size == 0) return nullptr;
  const c10::DeviceGuard guard(npu_device(device));
  if (stream == nullptr) stream = acl_stream(current_stream(device));
  return allocate_block(size, device, stream)->ptr;
}

void raw_delete(void* ptr) {
  if (ptr == nullptr) return;
  TORCH_CHECK(free_on_any_device(ptr), "caching_allocator_delete: ", ptr,
              " is not a live allocation of the npu caching allocator");
}

}  // namespace memory

namespace {

class NpuCachingAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    // The current device and its current stream (one thread-local lookup).
    const auto [device, stream] = current_device_and_stream();
    // (An index out of range fails in device_allocator below.)
    const c10::DeleterFnPtr deleter = device >= 0 && device < model::kMaxDevices
                                          ? memory::kDeviceDeleters[static_cast<std::size_t>(device)]
                                          : &memory::free_ptr;
    if (nbytes == 0) return {nullptr, nullptr, deleter, memory::npu_device(device)};
    void* ptr = memory::allocate_block(nbytes, device, stream)->ptr;
    return {ptr, ptr, deleter, memory::npu_device(device)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &memory::free_ptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    NPU_CHECK(aclrtMemcpy, dest, count, src, count, ACL_MEMCPY_DEVICE_TO_DEVICE);
  }

  bool initialized() override { return driver::loaded(); }

  void emptyCache(c10::MempoolId_t) override {
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) {
      if (memory::state().devices[d] != nullptr) memory::state().devices[d]->empty_cache();
    }
  }

  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override {
    // Only blocks of this allocator (not, say, a from_blob pointer).
    if (ptr.get() == nullptr || !memory::is_npu_deleter(ptr.get_deleter())) return;
    TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "record_stream: expected an npu stream, got ",
                stream);
    // The block is on the DataPtr's device.
    memory::device_allocator(ptr.device().index()).record_stream(ptr.get(), acl_stream(stream), stream.device_index());
  }

  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    return memory::device_allocator(device).stats();
  }
  void resetAccumulatedStats(c10::DeviceIndex device) override {
    memory::device_allocator(device).reset_accumulated_stats();
  }
  void resetPeakStats(c10::DeviceIndex device) override { memory::device_allocator(device).reset_peak_stats(); }

  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    const c10::DeviceGuard guard(memory::npu_device(device));
    size_t free = 0, total = 0;
    NPU_CHECK(aclrtGetMemInfo, ACL_HBM_MEM, &free, &total);
    return {free, total};
  }
};

}  // namespace

c10::DeviceAllocator& npu_allocator() {
  // Never destroyed, for the same reason as the allocator state.
  static NpuCachingAllocator& allocator = *new NpuCachingAllocator();
  return allocator;
}

void record_stream_for_allocator(const c10::DataPtr& data_ptr, c10::Stream stream) {
  npu_allocator().recordStream(data_ptr, stream);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &npu_allocator());

}  // namespace npu
