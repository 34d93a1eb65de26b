// NPU_EMU_FAULTS: faults a user asks for to test their recovery paths
// (OOM handling, error paths). "oom@N" makes the Nth device allocation of the
// process fail with an out-of-memory error; "aclnn_error@OP[:N]" makes the
// Nth launch (default: the first) of aclnn operator OP (aclnnAdd or Add)
// report an ACL error. Entries are comma-separated; each fires once.
// The parser lives here because both the runtime (operator errors) and the
// PyTorch allocator (allocations) read the same setting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npu::model {

struct OpFault {
  std::string op;  // with its "aclnn" prefix
  uint64_t launch = 1;
};

struct FaultPlan {
  std::vector<uint64_t> oom_at;  // 1-based allocation numbers
  std::vector<OpFault> op_errors;
};

inline constexpr const char* kFaultsVariable = "NPU_EMU_FAULTS";

// Parses a NPU_EMU_FAULTS value; throws std::invalid_argument naming the
// variable, the bad entry and the allowed forms.
FaultPlan parse_fault_plan(const std::string& text);

// The plan of this process's NPU_EMU_FAULTS (empty when unset); throws as
// parse_fault_plan.
FaultPlan fault_plan_from_environment();

}  // namespace npu::model
