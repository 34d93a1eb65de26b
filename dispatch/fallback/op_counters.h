// Per-op counters of how work ran: natively (an aclnn launch) or through the
// CPU fallback, so native coverage is a number (npu_emu.fallback_report()).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace npu {

enum class FallbackMode { Allow, Warn, Error };

// The mode from NPU_EMU_FALLBACK (allow|warn|error, default warn), else
// Error for torch_npu's TORCH_NPU_FALLBACK_CPU_DISABLE=1; throws naming the
// variable and the allowed values for anything else.
FallbackMode fallback_mode();
// The setting that forbids the fallback in Error mode, for error texts:
// "NPU_EMU_FALLBACK=error" or "TORCH_NPU_FALLBACK_CPU_DISABLE=1".
std::string fallback_forbidden_by();
void set_fallback_mode(const std::string& mode);
std::string fallback_mode_name();

void count_fallback(const std::string& op);
std::map<std::string, int64_t> fallback_counts();
std::map<std::string, int64_t> native_counts();
void reset_op_counters();

}  // namespace npu
