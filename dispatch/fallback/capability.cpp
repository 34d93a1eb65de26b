#include "dispatch/fallback/capability.h"

#include <string>

#include <c10/util/Exception.h>

#include "dispatch/fallback/op_counters.h"

namespace npu {

namespace {

const char* kInsteadOfError =
    " and NPU_EMU_FALLBACK=error forbids the CPU fallback (set NPU_EMU_FALLBACK=warn or allow to run it on the CPU";

[[noreturn]] void refuse_missing_symbol(const AclnnCapability& cap, const char* aten_schema) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, aten_schema, " cannot run natively on npu: the ACL library has no symbol ",
                              cap.aclnn, " (NPU=", driver::driver().mode, ", loaded: ", driver::loaded_libraries(),
                              ")", kInsteadOfError, ", or use a CANN version that provides ", cap.aclnn, ")");
}

[[noreturn]] void refuse_dtype(const AclnnCapability& cap, const char* aten_schema, c10::ScalarType dtype) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, aten_schema, " cannot run natively on npu: ", cap.aclnn,
                              " does not support dtype ", c10::getDtypeNames(dtype).first, " (supported: ",
                              cap.dtypes.to_string(), ")", kInsteadOfError, ", or convert to a supported dtype)");
}

}  // namespace

bool run_native(const AclnnCapability& cap, const char* aten_schema, c10::ArrayRef<c10::ScalarType> dtypes) {
  if (!cap.symbol_present()) {
    if (fallback_mode() == FallbackMode::Error) refuse_missing_symbol(cap, aten_schema);
    return false;
  }
  for (const c10::ScalarType dtype : dtypes) {
    if (cap.dtypes.contains(dtype)) continue;
    if (fallback_mode() == FallbackMode::Error) refuse_dtype(cap, aten_schema, dtype);
    return false;
  }
  return true;
}

}  // namespace npu
