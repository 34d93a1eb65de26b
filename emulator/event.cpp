#include "emulator/event.h"

namespace npu::emu {

uint64_t Event::begin_record() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++latest_;
}

void Event::complete(uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation <= completed_) return;  // an older record finishing late changes nothing
    completed_ = generation;
    when_ = Clock::now();
  }
  cv_.notify_all();
}

bool Event::query() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= latest_;
}

bool Event::recorded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_ > 0;
}

uint64_t Event::latest_generation() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

void Event::wait_for(uint64_t generation) const {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return completed_ >= generation; });
}

std::optional<Event::Clock::time_point> Event::completion_time() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (latest_ == 0 || completed_ < latest_) return std::nullopt;
  return when_;
}

}  // namespace npu::emu
