// Task makers of the binary pointwise family (ops/table/binary.yaml): each
// checks one call's operands on the host and returns the kernel task.
#pragma once

#include "acl/acl_base.h"
#include "emulator/ops/pointwise_entry.h"
#include "emulator/task_body.h"
#include "kernels/pointwise/binary_ops.h"

namespace npu::emu {

using kernels::BinaryFn;

// out = self (op) other, with alpha for add/sub (null: none).
TaskBody binary_task(BinaryFn op, const OperandArg& self, const OperandArg& other,
                     const OperandArg& alpha, aclTensor* out);

// out = self (op) other.
template <class Self, class Other>
TaskBody binary_task(BinaryFn op, const Self* self, const Other* other, aclTensor* out) {
  return binary_task(op, OperandArg(self, "self"), OperandArg(other, "other"),
                     OperandArg(static_cast<const aclScalar*>(nullptr), "alpha", true), out);
}
// out = self (op) alpha * other; alpha is required, as in CANN's aclnnAdd/aclnnSub.
template <class Other>
TaskBody binary_alpha_task(BinaryFn op, const aclTensor* self, const Other* other,
                           const aclScalar* alpha, aclTensor* out) {
  return binary_task(op, OperandArg(self, "self"), OperandArg(other, "other"), OperandArg(alpha, "alpha"), out);
}

// aclnnDivMod's rounding mode: 0 none, 1 trunc, 2 floor.
template <class Other>
TaskBody div_mod_task(const aclTensor* self, const Other* other, int mode, aclTensor* out);

}  // namespace npu::emu
