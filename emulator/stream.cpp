#include "emulator/stream.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "emulator/acl_error.h"
#include "emulator/task_recorder.h"
#include "kernels/core/tensor_view.h"

namespace npu::emu {

namespace {

// A whole decimal integer in [0, 10^9] (strtoull alone would take "abc" as 0
// and "-5" as a huge delay), or an error naming the variable.
uint64_t env_u64(const char* name, uint64_t fallback) {
  constexpr uint64_t kMax = 1000000000;
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end != '\0' || errno == ERANGE || value > kMax) {
    fail(ACL_ERROR_INVALID_PARAM, std::string(name) + " must be an integer from 0 to " + std::to_string(kMax) +
                                      " (microseconds), got '" + v + "'");
  }
  return value;
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
    if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0) return false;
    if (std::strcmp(v, "1") == 0) return true;
    fail(ACL_ERROR_INVALID_PARAM, std::string("ASCEND_LAUNCH_BLOCKING must be 0 or 1, got '") + v + "'");
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

void Stream::submit(Task&& task) {
  // The profiler's only hook (npu_emu.profiler): off, one relaxed load.
  if (__builtin_expect(task_recorder::enabled(), 0)) task_recorder::instrument(task, *this);
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
      // Started even when the task runs here: what a forked child must
      // refuse does not depend on which thread ran the parent's tasks.
      worker_ = std::thread([this] { worker_loop(); });
    }
    if (may_run_here(task)) {
      run_here(task, lock);
      // Blocking mode reports a failed task at its launch, wherever it ran.
      if (LaunchSettings::launch_blocking()) synchronize();
      return;
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

bool Stream::may_run_here(const Task& task) const {
  if (task.may_block || !queue_.empty() || completed_ != submitted_) return false;
  if (!task.is_kernel) return true;
  return LaunchSettings::kernel_delay_us() == 0 &&
         recent_kernel_ns_.load(std::memory_order_relaxed) <= static_cast<uint64_t>(kInlineKernelLimit.count());
}

void Stream::run_here(Task& task, std::unique_lock<std::mutex>& lock) {
  ++submitted_;
  running_here_ = true;
  lock.unlock();
  std::optional<Failure> failed = run_timed(task);
  task.body = nullptr;  // what the body captured is released before the task counts as done
  lock.lock();
  running_here_ = false;
  if (failed && !failure_) failure_ = std::move(failed);
  ++completed_;
  // Tasks other threads queued meanwhile were held back for stream order.
  const bool wake = worker_sleeping_ && !queue_.empty();
  lock.unlock();
  if (wake) work_ready_.notify_one();
  work_done_.notify_all();
}

namespace {

// How long kernels run, only to compare with kInlineKernelLimit. On x86 the
// time stamp counter (constant rate: constant_tsc/nonstop_tsc) is read in a
// few cycles; steady_clock costs a vDSO call, twice per kernel, a few
// percent of a small op's launch. Elsewhere steady_clock.
class KernelClock {
 public:
#if defined(__x86_64__) || defined(__i386__)
  static uint64_t ticks() { return __rdtsc(); }
  static uint64_t to_ns(uint64_t ticks) { return static_cast<uint64_t>(static_cast<double>(ticks) / ticks_per_ns()); }

 private:
  // Measured once, against steady_clock over 100 us.
  static double ticks_per_ns() {
    static const double value = [] {
      using clock = std::chrono::steady_clock;
      const auto t0 = clock::now();
      const uint64_t c0 = __rdtsc();
      auto t1 = t0;
      while (t1 - t0 < std::chrono::microseconds(100)) t1 = clock::now();
      const uint64_t c1 = __rdtsc();
      const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      return std::max(static_cast<double>(c1 - c0) / ns, 1e-3);
    }();
    return value;
  }
#else
  static uint64_t ticks() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  static uint64_t to_ns(uint64_t ticks) { return ticks; }
#endif
};

}  // namespace

std::optional<Stream::Failure> Stream::run_timed(Task& task) {
  if (!task.is_kernel) return run_task(task);
  const bool last_was_long =
      last_kernel_ns_.load(std::memory_order_relaxed) > static_cast<uint64_t>(kInlineKernelLimit.count());
  if (!last_was_long && ++untimed_ < kTimeEvery) return run_task(task);
  untimed_ = 0;
  const uint64_t start = KernelClock::ticks();
  std::optional<Failure> failed = run_task(task);
  const uint64_t end = KernelClock::ticks();
  // Kernels of one stream never run concurrently: no update is lost, and a
  // load and a store do (an exchange is a locked instruction, per kernel).
  const uint64_t now_ns = end > start ? KernelClock::to_ns(end - start) : 0;
  const uint64_t before = last_kernel_ns_.load(std::memory_order_relaxed);
  last_kernel_ns_.store(now_ns, std::memory_order_relaxed);
  recent_kernel_ns_.store(std::min(before, now_ns), std::memory_order_relaxed);
  return failed;
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

// How long the worker polls for the next task before blocking. Short tasks
// submitted to an idle stream run on the submitting thread (see submit), so
// the worker sees the long ones and those launched while it is busy: a short
// poll covers a host thread that launches the next op right after a long one
// finished, and the worker sleeps soon after a burst ends. While it polls it
// yields the core to any other runnable thread (another stream's worker, the
// host thread) instead of spinning on it: a 2-core machine has no core to spare.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(20);

}  // namespace

bool Stream::wait_for_work(std::unique_lock<std::mutex>& lock) {
  // A task running on a submitting thread holds back the queued ones.
  const auto nothing_to_start = [&] { return (queue_.empty() || running_here_) && !stopping_; };
  if (nothing_to_start()) {
    lock.unlock();
    const auto deadline = std::chrono::steady_clock::now() + kPollBeforeSleep;
    while (queued_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    lock.lock();
  }
  while (nothing_to_start()) {
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
    std::optional<Failure> failed = run_timed(*task);
    task.reset();  // what the body captured is released before the task counts as done
    lock.lock();
    if (failed && !failure_) failure_ = std::move(failed);
    ++completed_;
    // No syscall unless someone waits (synchronize, drain, blocking launches).
    work_done_.notify_all();
  }
}

}  // namespace npu::emu
