#include "dispatch/memory/fault_oom.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include <c10/util/Exception.h>

#include "device_model/fault_plan.h"

namespace npu::memory {

namespace {

struct OomFaults {
  OomFaults() {
    try {
      at = model::fault_plan_from_environment().oom_at;
    } catch (const std::invalid_argument& e) {
      TORCH_CHECK(false, e.what());
    }
    armed = !at.empty();
  }
  std::vector<uint64_t> at;  // allocation numbers to fail (each fires once)
  bool armed = false;
  std::atomic<uint64_t> count{0};
};

OomFaults& oom_faults() {
  static OomFaults faults;
  return faults;
}

}  // namespace

std::optional<uint64_t> injected_oom() {
  OomFaults& f = oom_faults();
  if (!f.armed) return std::nullopt;
  const uint64_t n = f.count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (std::find(f.at.begin(), f.at.end(), n) == f.at.end()) return std::nullopt;
  return n;
}

}  // namespace npu::memory
