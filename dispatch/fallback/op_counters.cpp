#include "dispatch/fallback/op_counters.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>

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

// Native launches are counted on every launch: their counters live in a
// fixed open-addressed table keyed by the op's name pointer (a string
// literal), found with a hash of the address and claimed with one
// compare-exchange. No lock, no thread-local (a __tls_get_addr call from a
// shared library) and no string per launch. Two literals of the same text
// are two slots; the report adds them up. Reset zeroes the counts; the
// reports leave zero counts out.
class NativeCounters {
 public:
  // The counter of `op`; null only when every slot is taken (far more slots
  // than the op table has entries).
  std::atomic<int64_t>* find(const char* op) {
    const auto key = reinterpret_cast<std::uintptr_t>(op);
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kBits));
    for (std::size_t probes = 0; probes < kSlots; ++probes, i = (i + 1) & (kSlots - 1)) {
      Slot& slot = slots_[i];
      const char* found = slot.op.load(std::memory_order_acquire);
      if (found == nullptr && slot.op.compare_exchange_strong(found, op, std::memory_order_acq_rel)) return &slot.count;
      if (found == op) return &slot.count;
    }
    return nullptr;
  }
  std::map<std::string, int64_t> counts() const {
    std::map<std::string, int64_t> counts;
    for (const Slot& slot : slots_) {
      const char* op = slot.op.load(std::memory_order_acquire);
      const int64_t n = slot.count.load(std::memory_order_relaxed);
      if (op != nullptr && n != 0) counts[op] += n;
    }
    return counts;
  }
  void reset() {
    for (Slot& slot : slots_) slot.count.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr int kBits = 12;
  static constexpr std::size_t kSlots = std::size_t{1} << kBits;
  struct Slot {
    std::atomic<const char*> op{nullptr};
    std::atomic<int64_t> count{0};
  };
  std::array<Slot, kSlots> slots_{};
};

// The counters registry.
struct Counters {
  std::mutex mutex;
  std::map<std::string, int64_t> fallback;
  // Native counts of ops that found no free slot in `native` (never in
  // practice; counted under the mutex).
  std::map<std::string, int64_t> native_overflow;
  std::optional<FallbackMode> mode;
  std::string forbidden_by = "NPU_EMU_FALLBACK=error";  // the setting that chose Error
};

// Constant-initialized (no guard on the launch path) and trivially
// destructible: launches during static destruction may still count.
NativeCounters g_native;

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
  std::map<std::string, int64_t> counts = g_native.counts();
  std::lock_guard<std::mutex> lock(counters().mutex);
  for (const auto& [op, n] : counters().native_overflow) {
    if (n != 0) counts[op] += n;
  }
  return counts;
}

void reset_op_counters() {
  std::lock_guard<std::mutex> lock(counters().mutex);
  counters().fallback.clear();
  counters().native_overflow.clear();
  g_native.reset();
}

namespace ops {
void count_native_launch(const char* op) {
  if (std::atomic<int64_t>* counter = g_native.find(op); __builtin_expect(counter != nullptr, 1)) {
    counter->fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::lock_guard<std::mutex> lock(counters().mutex);
  ++counters().native_overflow[op];
}
}  // namespace ops

}  // namespace npu
