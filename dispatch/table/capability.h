// What one aclnn op of the table supports, and the decision made from it
// before launching: run natively, or take the CPU fallback.
#pragma once

#include <cstdint>

#include <c10/core/ScalarType.h>

namespace npu::table {

constexpr uint64_t dtype_bit(at::ScalarType t) { return uint64_t{1} << static_cast<int>(t); }

struct Capability {
  const char* aclnn;  // "aclnnAdd"
  uint64_t dtypes;    // dtype_bit of every compute dtype its kernel covers
  bool (*present)();  // whether the loaded ACL library exports the op's pair
};

// True when `cap`'s op can run for `dtype`: its symbols are in the driver
// table and the dtype is covered. False means "take the fallback" - except
// under NPU_EMU_FALLBACK=error, where it throws one NotImplementedError naming
// `schema`, the aclnn op and what is missing.
bool run_native(const Capability& cap, const char* schema, at::ScalarType dtype);

}  // namespace npu::table
