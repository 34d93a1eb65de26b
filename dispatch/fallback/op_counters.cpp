#include "dispatch/fallback/op_counters.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

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

// The counters registry. Native launches are counted on every launch, so
// their counters are atomics in stable map nodes that a thread finds through
// its own cache keyed by the op's name pointer (a string literal): no lock,
// no string and no tree walk per launch. Reset zeroes them (cached pointers
// stay valid); the reports leave zero counts out.
struct Counters {
  std::mutex mutex;
  std::map<std::string, int64_t> fallback;
  std::map<std::string, std::atomic<int64_t>> native;
  std::optional<FallbackMode> mode;
  std::string forbidden_by = "NPU_EMU_FALLBACK=error";  // the setting that chose Error
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
    // torch_npu's switch, for scripts written for it: honoured when npu-emu's
    // own setting is absent.
    const char* torch_npu_env = std::getenv("TORCH_NPU_FALLBACK_CPU_DISABLE");
    const std::string disable = torch_npu_env ? torch_npu_env : "";
    if ((env == nullptr || *env == '\0') && !disable.empty()) {
      TORCH_CHECK(disable == "0" || disable == "1", "TORCH_NPU_FALLBACK_CPU_DISABLE must be 0 or 1; got '", disable,
                  "'");
      if (disable == "1") {
        c.mode = FallbackMode::Error;
        c.forbidden_by = "TORCH_NPU_FALLBACK_CPU_DISABLE=1";
      }
    }
  }
  return *c.mode;
}

std::string fallback_forbidden_by() {
  fallback_mode();
  std::lock_guard<std::mutex> lock(counters().mutex);
  return counters().forbidden_by;
}

void set_fallback_mode(const std::string& mode) {
  const FallbackMode m = parse_mode(mode);
  std::lock_guard<std::mutex> lock(counters().mutex);
  counters().mode = m;
  counters().forbidden_by = "NPU_EMU_FALLBACK=error";
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
  std::map<std::string, int64_t> counts;
  for (const auto& [op, n] : counters().native) {
    if (const int64_t v = n.load(std::memory_order_relaxed); v != 0) counts.emplace(op, v);
  }
  return counts;
}

void reset_op_counters() {
  std::lock_guard<std::mutex> lock(counters().mutex);
  counters().fallback.clear();
  for (auto& [op, n] : counters().native) n.store(0, std::memory_order_relaxed);
}

namespace ops {
void count_native_launch(const char* op) {
  thread_local std::unordered_map<const char*, std::atomic<int64_t>*> cache;
  std::atomic<int64_t>*& counter = cache[op];
  if (counter == nullptr) {
    std::lock_guard<std::mutex> lock(counters().mutex);
    counter = &counters().native[op];
  }
  counter->fetch_add(1, std::memory_order_relaxed);
}
}  // namespace ops

}  // namespace npu
