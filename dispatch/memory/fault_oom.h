// The allocator's half of NPU_EMU_FAULTS (device_model/fault_plan.h): the
// Nth device allocation of the process fails as an out-of-memory would, so
// users can test their OOM handling.
#pragma once

#include <cstdint>
#include <optional>

namespace npu::memory {

// Counts a device allocation; returns its number (from 1) when NPU_EMU_FAULTS
// asks it to fail with oom@N. Throws c10::Error for a bad NPU_EMU_FAULTS.
// One relaxed atomic load when no oom@N is asked for.
std::optional<uint64_t> injected_oom();

}  // namespace npu::memory
