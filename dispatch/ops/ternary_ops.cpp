// where.self and where.self_out on npu: the table's hand-written impls of
// aclnnSWhere (ops/table/ternary.yaml serves every other schema of the
// ternary family and of clamp). where has no structured meta function; CPU
// checks and converts some operands and builds its TensorIterator from a
// config, so these do the same steps before launching on the iterator's
// (resized) output.
#include <ATen/TensorIterator.h>
#include <ATen/native/TypeProperties.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace {

void check_condition(const at::Tensor& condition) {
  if (condition.scalar_type() == at::kByte) {
    TORCH_WARN_ONCE("where: a uint8 condition is deprecated in PyTorch; pass a bool condition instead.");
  }
  TORCH_CHECK(condition.scalar_type() == at::kBool || condition.scalar_type() == at::kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
}

// The first operand not on the CPU decides where the result lives (CPU
// scalars may accompany npu tensors).
at::Device result_device(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  for (const at::Tensor* t : {&condition, &self, &other}) {
    if (!t->is_cpu()) return t->device();
  }
  return condition.device();
}

// Launches aclnnSWhere into `out`, whose dtype is `result`. CPU 0-dim
// operands move to the device (the condition as bool, self and other in the
// result dtype); the TensorIterator checks devices and overlap and resizes
// `out` to the broadcast shape, as on CPU. The kernel converts npu operands
// to the result dtype itself.
void launch_where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other, at::ScalarType result,
                  const at::Tensor& out) {
  const at::Device device = out.device();
  const at::Tensor cond = *table::device_operand(condition, device, at::kBool);
  const at::Tensor a = *table::device_operand(self, device, result);
  const at::Tensor b = *table::device_operand(other, device, result);
  at::TensorIteratorConfig()
      .check_all_same_dtype(false)
      .add_output(out)
      .add_const_input(cond)
      .add_const_input(a)
      .add_const_input(b)
      .build();
  NPU_RUN(aclnnSWhere, cond, a, b, out);
}

}  // namespace

at::Tensor where_self(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  check_condition(condition);
  const at::ScalarType result = at::native::result_type(self, other);
  if (!npu::run_native(table::caps::aclnnSWhere, "where.self", table::operand_dtypes(result, self, other))) {
    return npu::fallback_call<at::Tensor>("where.self", condition, self, other);
  }
  at::Tensor out = empty_npu({0}, result, result_device(condition, self, other));
  launch_where(condition, self, other, result, out);
  return out;
}

at::Tensor& where_self_out(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other,
                           at::Tensor& out) {
  check_condition(condition);
  const at::ScalarType result = at::native::result_type(self, other);
  // CPU computes into `out` directly: no cast from the promoted dtype.
  TORCH_CHECK(out.scalar_type() == result, "Expected out type to be ", result, " but got ", out.scalar_type(),
              " (where's out must have the promoted dtype of self and other)");
  if (!npu::run_native(table::caps::aclnnSWhere, "where.self_out", table::operand_dtypes(result, self, other))) {
    return npu::fallback_call<at::Tensor&>("where.self_out", condition, self, other, out);
  }
  launch_where(condition, self, other, result, out);
  return out;
}

}  // namespace npu::ops
