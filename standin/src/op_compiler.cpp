// libacl_op_compiler.so: CANN's legacy operator path, which compiles a GE op
// type ("MatMul", "SoftmaxV2") for the device. The emulator implements
// operators only as aclnn functions, so this path is refused: the error names
// the op type and the aclnn functions this run looked up and did not find
// (torch_npu takes the legacy path exactly when an op's aclnn pair is
// missing). Each refused op type is counted for the coverage report.
#include <string>

#include "coverage.h"
#include "recent_error.h"
#include "standin_types.h"

namespace {

aclError refuse(const char* function, const char* opType) {
  const std::string op = opType != nullptr ? opType : "(null)";
  npu::standin::record_aclop(op);
  std::string message = std::string(function) + ": op type '" + op +
                        "' was sent to the legacy aclop path, which npu-emu's emulated CANN does not run (it runs "
                        "aclnn operators only).";
  const auto missing = npu::standin::missing_aclnn_names();
  if (!missing.empty()) {
    message += " aclnn functions this process looked up and the emulator lacks:";
    for (const auto& name : missing) message += " " + name;
    message += ".";
  }
  message += " Implement the op's aclnn function in npu-emu (ops/table), or run this op on the CPU.";
  return npu::standin::fail(ACL_ERROR_OP_NOT_FOUND, message);
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char* opType, int, const aclTensorDesc* const[], const aclDataBuffer* const[],
                                                    int, const aclTensorDesc* const[], aclDataBuffer* const[], const aclopAttr*,
                                                    aclopEngineType, aclopCompileType, const char*, aclrtStream) {
  return refuse("aclopCompileAndExecute", opType);
}

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char* opType, int, aclTensorDesc*[], aclDataBuffer*[], int, aclTensorDesc*[],
                                                      aclDataBuffer*[], aclopAttr*, aclopEngineType, aclopCompileType, const char*,
                                                      aclrtStream) {
  return refuse("aclopCompileAndExecuteV2", opType);
}

ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(const char* opType, int, const aclTensorDesc* const[], const aclDataBuffer* const[],
                                                     int, const aclTensorDesc* const[], aclDataBuffer* const[], const aclopAttr*,
                                                     aclopEngineType, const char*, const void*) {
  return refuse("aclGenGraphAndDumpForOp", opType);
}

// Compile options: there is no compiler; options are accepted and read back empty.
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt, const char*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt) { return 1; }
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt, char* value, size_t length) {
  if (value == nullptr || length == 0) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is null or length 0");
  value[0] = '\0';
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(int) { return ACL_SUCCESS; }

}  // extern "C"
