// The binary pointwise family's task makers: one generic maker, whose
// operands are described (not read) on the host; the kernel reads them when
// the task runs on the stream.
#include "emulator/ops/binary.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"

namespace npu::emu {

namespace {

kernels::Scalar alpha_value(const OperandArg& alpha) {
  const kernels::Operand arg = alpha.resolve();
  return arg.present() ? arg.scalar() : kernels::Scalar::from_int(1);
}

kernels::TensorView out_view(const aclTensor* out) {
  require_tensor(out, "out");
  return out->view();
}

// What a binary op's task captures, built once where it will be run from:
// the operands are resolved straight into it and checked there (a lambda
// capturing checked locals copied every operand view once more), in the
// members' order: self, other, alpha, out. A constructor, not a braced
// aggregate: GCC cleared the whole 664-byte aggregate before initializing
// its members.
struct BinaryTask {
  BinaryTask(BinaryFn fn, const OperandArg& self, const OperandArg& other, const OperandArg& alpha_arg,
             const aclTensor* out_tensor)
      : op(fn), a(self.resolve()), b(other.resolve()), alpha(alpha_value(alpha_arg)), out(out_view(out_tensor)) {}

  BinaryFn op;
  kernels::Operand a, b;
  kernels::Scalar alpha;
  kernels::TensorView out;
  kernels::BinaryDtypes dtypes{};
  void operator()() const { kernels::binary(op, dtypes, out, a, b, alpha); }
};

}  // namespace

TaskBody binary_task(BinaryFn op, const OperandArg& self, const OperandArg& other,
                     const OperandArg& alpha, aclTensor* out) {
  // The most frequent launch: its task must not allocate, and is built in
  // the body it is returned in (a BinaryTask is 664 bytes; building it
  // first and moving it in cost a copy of all three views).
  static_assert(TaskBody::stores_inline<BinaryTask>(), "the binary task outgrew TaskBody's inline room");
  TaskBody body = TaskBody::make_inline<BinaryTask>([&] { return BinaryTask(op, self, other, alpha, out); });
  BinaryTask& task = body.inline_target<BinaryTask>();
  task.dtypes = kernels::binary_dtypes(op, task.a, task.b, out->dtype, task.alpha);
  // Two tensors of one shape (most launches): that is the broadcast shape,
  // checked against out's without building it.
  if (!task.a.is_scalar() && !task.b.is_scalar() && task.a.tensor().sizes == task.b.tensor().sizes) {
    check_pointwise_out(out, task.a.tensor().sizes, task.dtypes.result);
  } else {
    check_pointwise_out(out, kernels::broadcast_operands({&task.a, &task.b}), task.dtypes.result);
  }
  // The kernel takes the dtypes and out's shape checked here as they are.
  return body;
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
