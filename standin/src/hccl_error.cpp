#include "hccl_error.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace npu::standin::hccl {
namespace {

// A positive whole number of seconds from `name`, else `fallback`; a malformed
// value is an error naming the setting rather than a silent default.
int seconds_from_env(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > 24L * 3600 * 365) {
    throw HcclError(HCCL_E_PARA, std::string(name) + "=" + text + " is not a number of seconds (0 .. 31536000)");
  }
  return value == 0 ? fallback : static_cast<int>(value);
}

Deadline deadline_from(const char* setting, int fallback) {
  const int seconds = seconds_from_env(setting, fallback);
  return Deadline{Clock::now() + std::chrono::seconds(seconds), setting, seconds};
}

}  // namespace

int Deadline::remaining_ms() const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

void Deadline::expire(const std::string& what) const {
  throw HcclError(HCCL_E_TIMEOUT, what + " did not finish within " + std::to_string(seconds) + " s (" + setting +
                                      "; is every rank running the same collectives in the same order?)");
}

Deadline connect_deadline() { return deadline_from("HCCL_CONNECT_TIMEOUT", 120); }
Deadline exec_deadline() { return deadline_from("HCCL_EXEC_TIMEOUT", 1836); }

}  // namespace npu::standin::hccl
