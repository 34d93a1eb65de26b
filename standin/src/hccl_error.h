// The stand-in HCCL's failures: an exception carrying the HcclResult the C
// entry returns, and the time limits every blocking step obeys so that a
// dead or stuck peer ends in an error, never in a hang.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "hccl_types.h"

namespace npu::standin::hccl {

class HcclError : public std::runtime_error {
 public:
  HcclError(HcclResult code, const std::string& message) : std::runtime_error(message), code_(code) {}
  HcclResult code() const { return code_; }

 private:
  HcclResult code_;
};

using Clock = std::chrono::steady_clock;

// A point in time a blocking step must finish by, with the setting that chose
// it (named in the timeout error so the user knows what to raise).
struct Deadline {
  Clock::time_point at;
  const char* setting;
  int seconds;

  // Milliseconds left for poll(); 0 once passed.
  int remaining_ms() const;
  [[noreturn]] void expire(const std::string& what) const;
};

// HCCL_CONNECT_TIMEOUT (seconds, CANN's default 120): building a communicator.
Deadline connect_deadline();
// HCCL_EXEC_TIMEOUT (seconds, CANN's default 1836; 0 or unset gives the
// default, so the wait stays bounded): one collective or send/recv.
Deadline exec_deadline();

}  // namespace npu::standin::hccl
