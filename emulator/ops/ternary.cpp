// The ternary pointwise family's task maker: where, lerp, addcmul, addcdiv
// and clamp share one kernel entry; operands are described (not read) on the
// host, and the kernel reads them when the task runs on the stream.
#include "emulator/ops/ternary.h"

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"

namespace npu::emu {

TaskBody ternary_task(TernaryFn op, const OperandArg& a, const OperandArg& b, const OperandArg& c,
                      aclTensor* out, const OperandArg& value) {
  // Not const: moved into the task (each operand's view owns two vectors).
  kernels::Operand x = a.resolve(), y = b.resolve(), z = c.resolve();
  const kernels::Operand v = value.resolve();
  const kernels::Scalar multiplier = v.present() ? v.scalar() : kernels::Scalar::from_int(1);
  require_tensor(out, "out");
  const model::DType result = kernels::ternary_result_dtype(op, x, y, z, out->dtype);
  check_pointwise_out(out, kernels::broadcast_operands({&x, &y, &z}), result);
  return [op, x = std::move(x), y = std::move(y), z = std::move(z), multiplier, o = out->view()] {
    kernels::ternary(op, o, x, y, z, multiplier);
  };
}

}  // namespace npu::emu
