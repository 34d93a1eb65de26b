// What a run asked of the emulated CANN that it lacks, so op coverage is a
// number: aclnn names torch_npu looked up and did not find (it logs each
// failed dlsym through aclAppLog at warning level, see app_log.cpp) and the
// op types it sent to the legacy aclop interface instead.
//
// With NPU_EMU_STANDIN_REPORT=<path> set, the list is written to <path> at
// exit, one "<kind> <name> <count>" line each (kind: missing-aclnn, aclop),
// sorted; `python -m npu_emu.standin_report <path>` summarizes it.
#pragma once

#include <string>
#include <vector>

#define NPU_STANDIN_SHARED __attribute__((visibility("default")))

namespace npu::standin {

NPU_STANDIN_SHARED void record_missing_aclnn(const std::string& name);
NPU_STANDIN_SHARED void record_aclop(const std::string& op_type);
// The aclnn names recorded so far, for error messages.
NPU_STANDIN_SHARED std::vector<std::string> missing_aclnn_names();

}  // namespace npu::standin
