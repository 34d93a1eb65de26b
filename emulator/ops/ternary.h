// Task makers of the ternary pointwise family (ops/table/ternary.yaml): each
// checks one call's operands on the host and returns the kernel task.
#pragma once

#include "acl/acl_base.h"
#include "emulator/ops/pointwise_entry.h"
#include "emulator/task_body.h"
#include "kernels/pointwise/ternary_ops.h"

namespace npu::emu {

using kernels::TernaryFn;

// An operand the op does without (aclnnClampMin's upper bound, the
// multiplier of ops that have none).
inline OperandArg no_operand() { return OperandArg(static_cast<const aclScalar*>(nullptr), "none", true); }

// An operand the caller may pass as null (aclnnClamp's bounds: one of the two).
template <class T>
OperandArg optional_operand(const T* arg, const char* name) {
  return OperandArg(arg, name, /*optional=*/true);
}

// out = op(a, b, c); `value` multiplies addcmul's product and addcdiv's
// quotient (1 when absent).
TaskBody ternary_task(TernaryFn op, const OperandArg& a, const OperandArg& b, const OperandArg& c,
                      aclTensor* out, const OperandArg& value = no_operand());

}  // namespace npu::emu
