#include "dispatch/fallback/op_counters.h"

#include <cstdlib>
#include <mutex>

#include <c10/util/Exception.h>

#include "dispatch/ops/op_runner.h"

namespace npu {

namespace {

FallbackMode parse_mode(const std::string& text) {
  if (text == "allow") return FallbackMode::Allow;
  if (text == "warn" || text.empty()) return FallbackMode::Warn;
  if (text == "error") return FallbackMode::Error;
  TORCH_CHECK(false, "NPU_EMU_FALLBACK must be one of allow, warn, error; got '", text, "'");
}

// The counters registry.
struct Counters {
  std::mutex mutex;
  std::map<std::string, int64_t> fallback;
  std::map<std::string, int64_t> native;
  std::optional<FallbackMode> mode;
};

Counters& counters() {
  static Counters c;
  return c;
}

}  // namespace

FallbackMode fallback_mode() {
  Counters& c = counters();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.mode) {
    const char* env = std::getenv("NPU_EMU_FALLBACK");
    c.mode = parse_mode(env ? env : "");
  }
  return *c.mode;
}

void set_fallback_mode(const std::string& mode) {
  const FallbackMode m = parse_mode(mode);
  std::lock_guard<std::mutex> lock(counters().mutex);
  counters().mode = m;
}

std::string fallback_mode_name() {
  switch (fallback_mode()) {
    case FallbackMode::Allow: return "allow";
    case FallbackMode::Warn: return "warn";
    case FallbackMode::Error: return "error";
  }
  return "warn";
}

void count_fallback(const std::string& op) {
  std::lock_guard<std::mutex> lock(counters().mutex);
  ++counters().fallback[op];
}

std::map<std::string, int64_t> fallback_counts() {
  std::lock_guard<std::mutex> lock(counters().mutex);
  return counters().fallback;
}

std::map<std::string, int64_t> native_counts() {
  std::lock_guard<std::mutex> lock(counters().mutex);
  return counters().native;
}

void reset_op_counters() {
  std::lock_guard<std::mutex> lock(counters().mutex);
  counters().fallback.clear();
  counters().native.clear();
}

namespace ops {
void count_native_launch(const char* op) {
  std::lock_guard<std::mutex> lock(counters().mutex);
  ++counters().native[op];
}
}  // namespace ops

}  // namespace npu
