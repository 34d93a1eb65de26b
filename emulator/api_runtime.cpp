// The ACL runtime API: init, devices, memory and copies.
#include <cstring>

#include "acl/acl_emu_ext.h"
#include "acl/acl_rt.h"
#include "emulator/acl_error.h"
#include "emulator/c_enum.h"
#include "emulator/device.h"
#include "kernels/copy/copy.h"

using npu::emu::fail;
using npu::emu::guarded;
using npu::emu::Runtime;

namespace {

void require(bool ok, aclError code, const char* message) {
  if (!ok) fail(code, message);
}

// The copy kind as the caller passed it, checked before it is used as the
// enum (emulator/c_enum.h says why).
aclrtMemcpyKind checked_kind(const aclrtMemcpyKind& kind) {
  const int value = npu::emu::c_enum_value(kind);
  if (value < ACL_MEMCPY_HOST_TO_HOST || value > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    fail(ACL_ERROR_INVALID_PARAM, "kind: unknown aclrtMemcpyKind " + std::to_string(value) +
                                      "; allowed: ACL_MEMCPY_HOST_TO_HOST (0), ACL_MEMCPY_HOST_TO_DEVICE (1), "
                                      "ACL_MEMCPY_DEVICE_TO_HOST (2), ACL_MEMCPY_DEVICE_TO_DEVICE (3)");
  }
  return static_cast<aclrtMemcpyKind>(value);
}

// Checks that the pointers of a copy live where `kind` says they do.
void check_copy(void* dst, size_t dest_max, const void* src, size_t count, const aclrtMemcpyKind& raw_kind) {
  const aclrtMemcpyKind kind = checked_kind(raw_kind);
  require(count <= dest_max, ACL_ERROR_INVALID_PARAM, "count exceeds destMax");
  if (count == 0) return;
  require(dst != nullptr && src != nullptr, ACL_ERROR_INVALID_PARAM, "null pointer");
  Runtime& rt = Runtime::get();
  const bool dst_dev = rt.device_of(dst, count) != nullptr;
  const bool src_dev = rt.device_of(src, count) != nullptr;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      require(!dst_dev && !src_dev, ACL_ERROR_INVALID_PARAM, "HOST_TO_HOST copy given a device address");
      break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
      require(dst_dev, ACL_ERROR_INVALID_PARAM, "HOST_TO_DEVICE destination is not device memory of that size");
      require(!src_dev, ACL_ERROR_INVALID_PARAM, "HOST_TO_DEVICE source is device memory");
      break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      require(src_dev, ACL_ERROR_INVALID_PARAM, "DEVICE_TO_HOST source is not device memory of that size");
      require(!dst_dev, ACL_ERROR_INVALID_PARAM, "DEVICE_TO_HOST destination is device memory");
      break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      require(dst_dev && src_dev, ACL_ERROR_INVALID_PARAM, "DEVICE_TO_DEVICE needs device memory on both sides");
      break;
  }
}

void check_memset(void* ptr, size_t max_count, size_t count) {
  require(count <= max_count, ACL_ERROR_INVALID_PARAM, "count exceeds maxCount");
  require(count == 0 || Runtime::get().device_of(ptr, count) != nullptr, ACL_ERROR_INVALID_PARAM,
          "address is not device memory of that size");
}

}  // namespace

extern "C" {

aclError aclInit(const char*) {
  return guarded("aclInit", [] { Runtime::get(); });
}

aclError aclFinalize(void) {
  return guarded("aclFinalize", [] {
    Runtime& rt = Runtime::get();
    for (int32_t i = 0; i < rt.device_count(); ++i) rt.synchronize_device(i);
  });
}

const char* aclGetRecentErrMsg(void) { return npu::emu::recent_error(); }

aclError aclrtSetDevice(int32_t deviceId) {
  return guarded("aclrtSetDevice", [&] { Runtime::get().set_current_device(deviceId); });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return guarded("aclrtGetDevice", [&] {
    require(deviceId != nullptr, ACL_ERROR_INVALID_PARAM, "deviceId is null");
    *deviceId = Runtime::get().current_device().id();
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return guarded("aclrtResetDevice", [&] { Runtime::get().synchronize_device(deviceId); });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return guarded("aclrtGetDeviceCount", [&] {
    require(count != nullptr, ACL_ERROR_INVALID_PARAM, "count is null");
    *count = static_cast<uint32_t>(Runtime::get().device_count());
  });
}

aclError aclrtSynchronizeDevice(void) {
  return guarded("aclrtSynchronizeDevice", [] {
    Runtime& rt = Runtime::get();
    rt.synchronize_device(rt.current_device().id());
  });
}

const char* aclrtGetSocName(void) {
  const char* name = nullptr;
  guarded("aclrtGetSocName", [&] { name = Runtime::get().profile().name.c_str(); });
  return name;
}

aclError aclrtGetMemInfo(aclrtMemAttr, size_t* free, size_t* total) {
  return guarded("aclrtGetMemInfo", [&] {
    require(free != nullptr && total != nullptr, ACL_ERROR_INVALID_PARAM, "free or total is null");
    auto& mem = Runtime::get().current_device().memory();
    *total = mem.capacity();
    *free = mem.capacity() - mem.used();
  });
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy) {
  return guarded("aclrtMalloc", [&] {
    require(devPtr != nullptr, ACL_ERROR_INVALID_PARAM, "devPtr is null");
    require(size > 0, ACL_ERROR_INVALID_PARAM, "size must be positive");
    *devPtr = Runtime::get().current_device().memory().allocate(size);
  });
}

aclError aclrtFree(void* devPtr) {
  return guarded("aclrtFree", [&] {
    require(devPtr != nullptr, ACL_ERROR_INVALID_PARAM, "devPtr is null");
    Runtime& rt = Runtime::get();
    npu::emu::Device* dev = rt.device_of(devPtr, 1);
    if (dev == nullptr) fail(ACL_ERROR_RT_MEMORY_FREE, "address is not a live device allocation (double free?)");
    // Work already queued may still use the memory: free only after it ran.
    // Drain rather than synchronize: another op's failure is not this call's
    // error, and it must stay pending for the next synchronizing call.
    rt.drain_device(dev->id());
    dev->memory().release(devPtr);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return guarded("aclrtMallocHost", [&] {
    require(hostPtr != nullptr, ACL_ERROR_INVALID_PARAM, "hostPtr is null");
    *hostPtr = Runtime::get().allocate_host(size);
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return guarded("aclrtFreeHost", [&] { Runtime::get().free_host(hostPtr); });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return guarded("aclrtMemcpy", [&] {
    check_copy(dst, destMax, src, count, kind);
    // A synchronous copy orders after all work queued on the device.
    Runtime& rt = Runtime::get();
    if (rt.has_current_device()) rt.synchronize_device(rt.current_device().id());
    if (count > 0) std::memmove(dst, src, count);
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return guarded("aclrtMemset", [&] {
    check_memset(devPtr, maxCount, count);
    Runtime& rt = Runtime::get();
    rt.synchronize_device(rt.current_device().id());
    if (count > 0) std::memset(devPtr, value, count);
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  return guarded("aclrtMemcpyAsync", [&] {
    check_copy(dst, destMax, src, count, kind);
    Runtime::get().stream(stream).submit({"aclrtMemcpyAsync", [=] { std::memmove(dst, src, count); }, false});
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  return guarded("aclrtMemsetAsync", [&] {
    check_memset(devPtr, maxCount, count);
    Runtime::get().stream(stream).submit({"aclrtMemsetAsync", [=] { std::memset(devPtr, value, count); }, false});
  });
}

aclError aclemuSetKernelDelayUs(uint64_t delayUs) {
  return guarded("aclemuSetKernelDelayUs", [&] { npu::emu::LaunchSettings::set_kernel_delay_us(delayUs); });
}

uint64_t aclemuGetKernelDelayUs(void) { return npu::emu::LaunchSettings::kernel_delay_us(); }

}  // extern "C"
