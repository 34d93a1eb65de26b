// The runtime's half of NPU_EMU_FAULTS (device_model/fault_plan.h): an
// aclnn operator's Nth launch reports an ACL error, as a failing kernel would.
#pragma once

namespace npu::emu {

// Throws AclError (ACLNN_ERR_RUNTIME_ERROR) when NPU_EMU_FAULTS asks this
// launch of `op_name` to fail; throws AclError(ACL_ERROR_INVALID_PARAM) for a
// bad NPU_EMU_FAULTS. Nearly free when no operator fault is asked for.
void inject_op_fault(const char* op_name);

// Parses NPU_EMU_FAULTS now (aclInit), so a bad value fails there.
void check_fault_setting();

}  // namespace npu::emu
