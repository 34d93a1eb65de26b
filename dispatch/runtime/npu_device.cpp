#include "dispatch/runtime/npu_device.h"

#include <pthread.h>

#include <atomic>

#include <c10/util/Exception.h>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/thread_state.h"

namespace npu {

namespace {
// The ACL current device is per thread; PyTorch threads start on device 0.
thread_local ThreadState t_state;

// Set by the first successful aclrtSetDevice: from then on the runtime may
// run threads (streams) that a forked child will not have.
std::atomic<bool> g_initialized{false};
std::atomic<bool> g_bad_fork{false};

void mark_child_after_fork() {
  if (g_initialized.load(std::memory_order_acquire)) g_bad_fork.store(true, std::memory_order_release);
}

// Registered when the extension loads, before any device can be initialized.
const bool g_fork_handler_registered = [] {
  pthread_atfork(nullptr, nullptr, &mark_child_after_fork);
  return true;
}();
}  // namespace

bool in_bad_fork() noexcept { return g_bad_fork.load(std::memory_order_acquire); }

void check_not_forked() {
  TORCH_CHECK(!in_bad_fork(),
              "Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, you must use the "
              "'spawn' start method");
}

c10::DeviceIndex device_count() noexcept {
  // The visible devices are fixed once the driver is loaded: ask ACL once,
  // not on every launch.
  static std::atomic<int> cached{-1};
  const int known = cached.load(std::memory_order_relaxed);
  if (known >= 0) return static_cast<c10::DeviceIndex>(known);
  if (!driver::loaded()) return 0;
  uint32_t n = 0;
  if (driver::driver().aclrtGetDeviceCount(&n) != ACL_SUCCESS) return 0;
  cached.store(static_cast<int>(n), std::memory_order_relaxed);
  return static_cast<c10::DeviceIndex>(n);
}

void check_device_index(c10::DeviceIndex index) {
  const auto n = device_count();
  TORCH_CHECK(index >= 0 && index < n, "Invalid NPU device index ", static_cast<int>(index), ": ", static_cast<int>(n),
              " npu device(s) are visible, valid indices are 0..", static_cast<int>(n) - 1);
}

ThreadState& thread_state() { return t_state; }

c10::DeviceIndex current_device() { return current_device(t_state); }

c10::DeviceIndex current_device(ThreadState& mine) {
  check_not_forked();
  if (mine.device < 0) set_device(0);
  return mine.device;
}

void set_device(c10::DeviceIndex index) {
  check_not_forked();
  ThreadState& mine = t_state;
  if (index == mine.device) return;
  check_device_index(index);
  NPU_CHECK(aclrtSetDevice, index);
  g_initialized.store(true, std::memory_order_release);
  mine.device = index;
}

void synchronize_device(c10::DeviceIndex index) {
  const auto prev = current_device();
  set_device(index);
  NPU_CHECK(aclrtSynchronizeDevice);
  set_device(prev);
}

}  // namespace npu
