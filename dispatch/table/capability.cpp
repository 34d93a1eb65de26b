#include "dispatch/table/capability.h"

#include <string>

#include <c10/util/Exception.h>

#include "dispatch/fallback/op_counters.h"

namespace npu::table {

namespace {

std::string dtype_list(uint64_t bits) {
  std::string out;
  for (int i = 0; i < static_cast<int>(at::ScalarType::NumOptions); ++i) {
    if (bits & (uint64_t{1} << i)) {
      if (!out.empty()) out += ", ";
      out += c10::toString(static_cast<at::ScalarType>(i));
    }
  }
  return out;
}

}  // namespace

bool run_native(const Capability& cap, const char* schema, at::ScalarType dtype) {
  const bool has_symbol = cap.present();
  if (has_symbol && (cap.dtypes & dtype_bit(dtype))) return true;
  if (fallback_mode() == FallbackMode::Error) {
    if (!has_symbol) {
      TORCH_CHECK_NOT_IMPLEMENTED(false, "aten::", schema, " on npu needs ", cap.aclnn,
                                  ", which the loaded ACL library does not export, and NPU_EMU_FALLBACK=error "
                                  "forbids the CPU fallback");
    }
    TORCH_CHECK_NOT_IMPLEMENTED(false, "aten::", schema, " on npu: ", cap.aclnn, " does not support dtype ", dtype,
                                " (supported: ", dtype_list(cap.dtypes),
                                "), and NPU_EMU_FALLBACK=error forbids the CPU fallback");
  }
  return false;
}

}  // namespace npu::table
