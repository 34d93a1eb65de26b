// The binary pointwise family's task makers: one generic maker, whose
// operands are described (not read) on the host; the kernel reads them when
// the task runs on the stream.
#include "emulator/ops/binary.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"

namespace npu::emu {

TaskBody binary_task(BinaryFn op, const OperandArg& self, const OperandArg& other,
                     const OperandArg& alpha, aclTensor* out) {
  // Not const: moved into the task.
  kernels::Operand a = self.resolve(), b = other.resolve();
  const kernels::Operand alpha_arg = alpha.resolve();
  const kernels::Scalar al = alpha_arg.present() ? alpha_arg.scalar() : kernels::Scalar::from_int(1);
  require_tensor(out, "out");
  const kernels::BinaryDtypes dtypes = kernels::binary_dtypes(op, a, b, out->dtype, al);
  check_pointwise_out(out, kernels::broadcast_operands({&a, &b}), dtypes.result);
  // The kernel takes the dtypes and out's shape checked here as they are.
  auto task = [op, dtypes, a = std::move(a), b = std::move(b), al, o = out->view()] {
    kernels::binary(op, dtypes, o, a, b, al);
  };
  // The most frequent launch: its task must not allocate.
  static_assert(TaskBody::stores_inline<decltype(task)>(), "the binary task outgrew TaskBody's inline room");
  return task;
}

namespace {

BinaryFn div_mode_op(int mode) {
  switch (mode) {
    case 0: return BinaryFn::Div;
    case 1: return BinaryFn::DivTrunc;
    case 2: return BinaryFn::DivFloor;
  }
  fail(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (none), 1 (trunc) or 2 (floor), got " + std::to_string(mode));
}

}  // namespace

template <class Other>
TaskBody div_mod_task(const aclTensor* self, const Other* other, int mode, aclTensor* out) {
  return binary_task(div_mode_op(mode), self, other, out);
}
template TaskBody div_mod_task(const aclTensor*, const aclTensor*, int, aclTensor*);
template TaskBody div_mod_task(const aclTensor*, const aclScalar*, int, aclTensor*);

}  // namespace npu::emu
