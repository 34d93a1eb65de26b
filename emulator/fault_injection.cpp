#include "emulator/fault_injection.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_model/fault_plan.h"
#include "emulator/acl_error.h"

namespace npu::emu {

namespace {

// Parsed on first use; a bad value throws from the constructor, and the next
// use tries again (and throws again), so every call reports it.
struct OpFaults {
  OpFaults() {
    try {
      pending = model::fault_plan_from_environment().op_errors;
    } catch (const std::invalid_argument& e) {
      fail(ACL_ERROR_INVALID_PARAM, e.what());
    }
    launches.assign(pending.size(), 0);
    armed.store(!pending.empty(), std::memory_order_release);
  }

  std::mutex mutex;
  std::vector<model::OpFault> pending;  // not fired yet
  std::vector<uint64_t> launches;       // launches seen so far, per entry
  std::atomic<bool> armed{false};       // any entry pending: launches read only this
};

OpFaults& op_faults() {
  static OpFaults faults;
  return faults;
}

}  // namespace

void check_fault_setting() { (void)op_faults(); }

void inject_op_fault(const char* op_name) {
  OpFaults& f = op_faults();
  if (!f.armed.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(f.mutex);
  for (std::size_t i = 0; i < f.pending.size(); ++i) {
    if (f.pending[i].op != op_name) continue;
    if (++f.launches[i] != f.pending[i].launch) continue;
    const std::string what = "NPU_EMU_FAULTS: injected error in launch " + std::to_string(f.launches[i]) + " of " +
                             op_name + " (aclnn_error@" + f.pending[i].op + ":" +
                             std::to_string(f.pending[i].launch) + ")";
    f.pending.erase(f.pending.begin() + static_cast<std::ptrdiff_t>(i));
    f.launches.erase(f.launches.begin() + static_cast<std::ptrdiff_t>(i));
    f.armed.store(!f.pending.empty(), std::memory_order_release);
    fail(ACLNN_ERR_RUNTIME_ERROR, what);
  }
}

}  // namespace npu::emu
