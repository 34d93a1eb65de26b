// libacl_op_compiler.so: CANN's legacy operator path, which compiles a GE op
// type ("MatMul", "SoftmaxV2") for the device. The emulator implements
// operators only as aclnn functions, so this path is refused. torch_npu takes
// it when an op's aclnn pair is missing or, for most ops, when an input is in
// a private format. The refusal comes at torch_npu's call site, in
// aclSetCompileopt (aclop_call_site.h), so torch_npu raises it there and its
// task queue keeps running; aclopCompileAndExecute, reached only on paths
// that skip that call, refuses naming the op type. Each refusal is counted
// for the coverage report.
#include <string>

#include "aclop_call_site.h"
#include "coverage.h"
#include "recent_error.h"
#include "standin_types.h"

namespace {

// ACL_OP_JIT_COMPILE in CANN's aclCompileOpt.
constexpr aclCompileOpt kJitCompileOption = 10;

// What torch_npu can do instead, and the aclnn names it found missing.
std::string remedies() {
  std::string text =
      " torch_npu takes that path for an op whose aclnn functions are missing and, for most ops, when an input is "
      "in a private format (NC1HWC0, FRACTAL_NZ, ...).";
  const auto missing = npu::standin::missing_aclnn_names();
  if (!missing.empty()) {
    text += " aclnn functions this process looked up and the emulator lacks:";
    for (const auto& name : missing) text += " " + name;
    text += ".";
  }
  return text + " Cast private-format tensors to their base format first (torch_npu.npu_format_cast(t, 2) for ND, "
                "0 for NCHW) or leave torch.npu.config.allow_internal_format off; implement a missing aclnn "
                "function in npu-emu (ops/table); or run this op on the CPU.";
}

aclError refuse(const char* function, const char* opType) {
  const std::string op = opType != nullptr ? opType : "(null)";
  npu::standin::record_aclop(op);
  return npu::standin::fail(ACL_ERROR_OP_NOT_FOUND,
                            std::string(function) + ": op type '" + op +
                                "' was sent to the legacy aclop path, which npu-emu's emulated CANN does not run (it "
                                "runs aclnn operators only)." + remedies());
}

// An aclop operator on its way to torch_npu's task queue (its tensors were
// just described on this thread): refused before it is queued. Its op type is
// not known yet; its tensors and attributes are (attributes such as
// cell_type=LSTM usually tell which operator it is).
aclError refuse_at_call_site(const std::string& tensors, const std::string& attributes) {
  npu::standin::record_aclop("(refused-before-queueing)");
  return npu::standin::fail(ACL_ERROR_OP_NOT_FOUND,
                            "torch_npu was about to run an op through CANN's legacy aclop path (tensors: " + tensors +
                                (attributes.empty() ? "" : "; attributes: " + attributes) +
                                "), which npu-emu's emulated CANN does not run (it runs aclnn operators only); the op "
                                "is refused here, before torch_npu queues it, and later ops run normally." +
                                remedies());
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

// Compile options: there is no compiler; options are accepted (but see
// refuse_at_call_site) and read back empty.
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char*) {
  if (opt == kJitCompileOption) {
    const std::string tensors = npu::standin::take_pending_descriptions();
    const std::string attributes = npu::standin::take_pending_attributes();
    if (!tensors.empty()) return refuse_at_call_site(tensors, attributes);
  }
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt) { return 1; }
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt, char* value, size_t length) {
  if (value == nullptr || length == 0) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is null or length 0");
  value[0] = '\0';
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(int) { return ACL_SUCCESS; }

}  // extern "C"
