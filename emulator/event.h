// An event: a marker recorded into a stream that completes when the stream
// reaches it. Only the most recent record counts, as on the device.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

namespace npu::emu {

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  Event(uint32_t flags, bool timing) : flags_(flags), timing_(timing) {}

  bool timing() const { return timing_; }
  uint32_t flags() const { return flags_; }

  // Host side of a record: returns the generation the stream must complete.
  uint64_t begin_record();
  // Host side of a record on a stream of `device`: as begin_record, and
  // remembers the device (elapsed time is only defined within one device).
  uint64_t begin_record(int32_t device) {
    device_.store(device, std::memory_order_relaxed);
    return begin_record();
  }
  // The device of the latest record; -1 when never recorded.
  int32_t device() const { return device_.load(std::memory_order_relaxed); }
  // Stream side: the stream reached the record of `generation`.
  void complete(uint64_t generation);

  // True when the latest record has completed, or the event was never recorded.
  bool query() const;
  bool recorded() const;
  uint64_t latest_generation() const;
  void wait_for(uint64_t generation) const;  // blocks until that record completed
  void synchronize() const { wait_for(latest_generation()); }
  // When the latest record completed; nullopt while it has not.
  std::optional<Clock::time_point> completion_time() const;

 private:
  const uint32_t flags_;
  const bool timing_;
  std::atomic<int32_t> device_{-1};
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  uint64_t latest_ = 0;     // generation of the latest record (0: never)
  uint64_t completed_ = 0;  // highest completed generation
  Clock::time_point when_{};
};

}  // namespace npu::emu
