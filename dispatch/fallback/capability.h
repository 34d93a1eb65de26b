// What one aclnn op can do, stated once (by the op table's generated code, or
// by hand until an op moves onto the table), and the decision made from it
// before anything is launched: run the op natively, or take the CPU fallback.
// The decision never depends on an error raised by a launch.
#pragma once

#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/fallback/dtype_set.h"

namespace npu {

struct AclnnCapability {
  const char* aclnn;          // the CANN op name, "aclnnAdd"
  DTypeSet dtypes;            // the dtypes its entry computes in
  bool (*symbol_present)();   // whether the loaded driver resolved the op pair
};

// True when `cap`'s op can run natively: the driver has its symbols and every
// one of `dtypes` is in cap.dtypes. False when the caller should run aten
// `aten_schema` ("atan2.out") through the CPU fallback instead, except under
// NPU_EMU_FALLBACK=error, where this throws one c10::NotImplementedError
// naming the schema, the aclnn op and what it lacks (the dtype and the
// supported ones, or the symbol absent from the loaded ACL libraries).
bool run_native(const AclnnCapability& cap, const char* aten_schema, c10::ArrayRef<c10::ScalarType> dtypes);

}  // namespace npu

// A capability for aclnn op `op` computing in the listed dtypes:
//   constexpr AclnnCapability kAtan2 = NPU_ACLNN_CAPABILITY(aclnnAtan2, dtypes::kFloating | ...);
#define NPU_ACLNN_CAPABILITY(op, dtype_set) \
  ::npu::AclnnCapability { #op, (dtype_set), +[] { return NPU_ACLNN_PRESENT(op); } }
