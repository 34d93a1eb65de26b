#include "emulator/stream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "emulator/acl_error.h"
#include "kernels/core/tensor_view.h"

namespace npu::emu {

namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::atomic<uint64_t>& delay_us() {
  static std::atomic<uint64_t> value{env_u64("NPU_EMU_KERNEL_DELAY_US", 0)};
  return value;
}

}  // namespace

uint64_t LaunchSettings::kernel_delay_us() { return delay_us().load(std::memory_order_relaxed); }
void LaunchSettings::set_kernel_delay_us(uint64_t us) { delay_us().store(us, std::memory_order_relaxed); }
bool LaunchSettings::launch_blocking() {
  static const bool blocking = [] {
    const char* v = std::getenv("ASCEND_LAUNCH_BLOCKING");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return blocking;
}

namespace {
// Set by the first worker thread of the process, never cleared (a forked
// child inherits it: it tells the child that threads it relied on are gone).
std::atomic<bool> g_worker_started{false};
}  // namespace

bool Stream::any_worker_started() { return g_worker_started.load(std::memory_order_acquire); }

Stream::Stream(int32_t device, uint32_t priority) : device_(device), priority_(priority) {}

Stream::~Stream() { stop(); }

void Stream::stop() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopped_) return;
    wait_idle(lock);
    stopping_ = true;
    stopped_ = true;
  }
  work_ready_.notify_all();
  // worker_ is assigned only by a submit that saw !stopped_, so it cannot
  // change any more.
  if (worker_.joinable()) worker_.join();
}

void Stream::submit(Task task) {
  bool wake = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopped_) {
      lock.unlock();
      run_inline(std::move(task));
      return;
    }
    if (!worker_.joinable()) {
      // Marked first: a fork racing with this start must count the thread.
      g_worker_started.store(true, std::memory_order_release);
      // Before the task is queued: if the thread cannot be started, the
      // launch fails and leaves nothing behind that would never run.
      worker_ = std::thread([this] { worker_loop(); });
    }
    queue_.push_back(std::move(task));
    queued_.store(queue_.size(), std::memory_order_release);
    ++submitted_;
    wake = worker_sleeping_;
  }
  // A worker that is running or spinning finds the task by itself; waking a
  // blocked one costs a futex call and a context switch, per launch.
  if (wake) work_ready_.notify_one();
  if (LaunchSettings::launch_blocking()) synchronize();
}

void Stream::run_inline(Task task) {
  std::optional<Failure> failed = run_task(task);
  std::lock_guard<std::mutex> lock(mutex_);
  ++submitted_;
  ++completed_;
  if (failed && !failure_) failure_ = std::move(failed);
}

void Stream::wait_idle(std::unique_lock<std::mutex>& lock) {
  const uint64_t target = submitted_;
  work_done_.wait(lock, [&] { return completed_ >= target; });
}

void Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_idle(lock);
  if (failure_) {
    const Failure f = std::move(*failure_);
    failure_.reset();
    fail(f.code, "the asynchronous task '" + f.task + "' failed: " + f.message);
  }
}

void Stream::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_idle(lock);
}

bool Stream::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ == submitted_;
}

namespace {

// How long the worker polls for the next task before blocking: a host thread
// launching op after op (a Python loop of small ops) submits every few
// microseconds, so the worker stays awake through such a burst instead of
// being woken by each launch, and sleeps soon after the burst ends.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(50);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

bool Stream::wait_for_work(std::unique_lock<std::mutex>& lock) {
  if (queue_.empty() && !stopping_) {
    lock.unlock();
    const auto deadline = std::chrono::steady_clock::now() + kSpinBeforeSleep;
    for (int i = 1; queued_.load(std::memory_order_acquire) == 0; ++i) {
      cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) break;
    }
    lock.lock();
  }
  while (queue_.empty() && !stopping_) {
    worker_sleeping_ = true;
    work_ready_.wait(lock);
    worker_sleeping_ = false;
  }
  return !queue_.empty();
}

std::optional<Stream::Failure> Stream::run_task(Task& task) {
  try {
    if (task.is_kernel) {
      if (const uint64_t us = LaunchSettings::kernel_delay_us()) {
        // The latency knob: an emulated device being slow, not a test sleeping.
        std::this_thread::sleep_for(std::chrono::microseconds(us));
      }
    }
    task.body();
  } catch (const AclError& e) {
    return Failure{task.name, e.what(), e.code()};
  } catch (const kernels::KernelError& e) {
    return Failure{task.name, e.what(), ACLNN_ERR_PARAM_INVALID};
  } catch (const std::exception& e) {
    return Failure{task.name, e.what(), ACL_ERROR_RT_AICORE_EXCEPTION};
  } catch (...) {
    // Anything escaping the worker would terminate the process.
    return Failure{task.name, "unknown exception", ACL_ERROR_RT_AICORE_EXCEPTION};
  }
  return std::nullopt;
}

void Stream::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (wait_for_work(lock)) {
    std::optional<Task> task(std::move(queue_.front()));
    queue_.pop_front();
    queued_.store(queue_.size(), std::memory_order_release);
    lock.unlock();
    std::optional<Failure> failed = run_task(*task);
    task.reset();  // what the body captured is released before the task counts as done
    lock.lock();
    if (failed && !failure_) failure_ = std::move(failed);
    ++completed_;
    // No syscall unless someone waits (synchronize, drain, blocking launches).
    work_done_.notify_all();
  }
}

}  // namespace npu::emu
