// A stream: an ordered queue of tasks run by a worker thread of its own.
// Launches return at once; failures inside a task are kept and reported by
// the next synchronizing call, with the op's name, after which the stream
// keeps working (as a device stream does after an op error is consumed).
// The worker starts with the first task, so a process that only loaded the
// runtime has no stream threads (and can fork safely).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "emulator/task.h"

namespace npu::emu {

class Stream {
 public:
  Stream(int32_t device, uint32_t priority);
  ~Stream();  // drains the queue, then joins the worker (calls stop())
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Enqueues a task; returns at once (or after it ran, in blocking mode).
  // A short task submitted to an idle stream runs right here on the caller's
  // thread instead: a schedule a device could have produced (the task just
  // finished fast), without the hand-off to the worker that costs more than
  // a small kernel itself. Never with a kernel delay set (asynchrony stays
  // observable), never for a task that may block, and not after the last two
  // kernels of this stream each ran longer than kInlineKernelLimit (long
  // kernels keep the host free to run ahead).
  // Taken by reference: a task's body is moved only when it is queued.
  void submit(Task&& task);
  // Blocks until every task submitted so far has run; throws the first
  // pending task error as AclError and clears it.
  void synchronize();
  // Blocks until every task submitted so far has run, leaving any pending
  // task error in place for the next synchronize (for implicit waits such as
  // aclrtFree's, which must neither fail on nor swallow another op's error).
  void drain();
  // True when every submitted task has run.
  bool idle() const;
  // Drains the queue and joins the worker; later tasks run on the caller's
  // thread at submit. For process exit: no stream thread may still run
  // when the libraries its tasks use are torn down.
  void stop();

  // True once any stream of this process has started its worker thread:
  // what a forked child has lost (threads do not survive fork()).
  static bool any_worker_started();

  int32_t device() const { return device_; }
  uint32_t priority() const { return priority_; }

 private:
  // Two kernels in a row that ran longer than this send the stream's next
  // kernel to the worker: the host thread runs ahead again while long kernels
  // execute. Two, because one short kernel preempted on a loaded machine
  // looks long once.
  static constexpr std::chrono::nanoseconds kInlineKernelLimit{20'000};
 public:
  // While a stream's kernels are short, one in this many is timed (two clock
  // reads, ≈80 cycles, are a few percent of a small op's launch); after a
  // timed long one, every kernel is timed until they are short again. Long
  // kernels that follow a run of short ones go to the worker after at most
  // kTimeEvery + 1 of them.
  static constexpr uint32_t kTimeEvery = 8;

 private:

  struct Failure {
    std::string task;
    std::string message;
    int code;
  };
  void worker_loop();
  // Waits (the lock held on entry and return) until a task is queued or the
  // stream stops; false when stopping with nothing left to run.
  bool wait_for_work(std::unique_lock<std::mutex>& lock);
  void wait_idle(std::unique_lock<std::mutex>& lock);
  // Runs one task, turning what it throws into a Failure.
  static std::optional<Failure> run_task(Task& task);
  void run_inline(Task task);
  // True when `task` may run on the submitting thread now (mutex_ held).
  bool may_run_here(const Task& task) const;
  // Runs `task` on the caller's thread as the stream's only task in flight.
  void run_here(Task& task, std::unique_lock<std::mutex>& lock);
  // Runs a task, timing kernels (for may_run_here's limit).
  std::optional<Failure> run_timed(Task& task);

  const int32_t device_;
  const uint32_t priority_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<Task> queue_;
  // queue_.size(), readable without the mutex: what the worker polls while
  // it spins between tasks.
  std::atomic<std::size_t> queued_{0};
  // Set by the worker while it blocks on work_ready_: only then does a
  // submit pay for a wake-up.
  bool worker_sleeping_ = false;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool stopped_ = false;  // after stop(): submit runs tasks inline
  // A task is running on a submitting thread: the worker must not start the
  // next one (stream order) until it is done.
  bool running_here_ = false;
  // How long the last two kernels of this stream ran, in ns: the shorter of
  // them (what may_run_here compares) and the last one.
  std::atomic<uint64_t> recent_kernel_ns_{0};
  std::atomic<uint64_t> last_kernel_ns_{0};
  // Kernels run untimed since the last timed one (run_timed; kernels of one
  // stream never run concurrently). The first kernel of a stream is timed.
  uint32_t untimed_ = kTimeEvery - 1;
  std::optional<Failure> failure_;
  std::thread worker_;  // started by the first submit, under mutex_
};

// Process-wide emulator knobs read by streams (a registry, not per-stream state).
struct LaunchSettings {
  static uint64_t kernel_delay_us();
  static void set_kernel_delay_us(uint64_t us);
  static bool launch_blocking();  // ASCEND_LAUNCH_BLOCKING=1
};

}  // namespace npu::emu
