// aclnn entries of the ternary pointwise family (where, lerp, addcmul,
// addcdiv, clamp); all go through one generic maker.
#include "acl/aclnn_ternary.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "emulator/ops/pointwise_entry.h"
#include "kernels/pointwise/ternary_ops.h"

using npu::emu::OperandArg;
using npu::kernels::TernaryFn;

namespace {

constexpr bool kOptional = true;
const OperandArg kNone(static_cast<const aclScalar*>(nullptr), "none", kOptional);

aclnnStatus ternary_entry(const char* api, TernaryFn op, const OperandArg& first, const OperandArg& second,
                          const OperandArg& third, const OperandArg& value, aclTensor* out, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  return npu::emu::prepare_op(api, workspace_size, executor, [&] {
    npu::kernels::Operand a = first.resolve(), b = second.resolve(), c = third.resolve();  // moved into the task
    const npu::kernels::Operand v = value.resolve();
    const npu::kernels::Scalar multiplier = v.present() ? v.scalar() : npu::kernels::Scalar::from_int(1);
    npu::emu::require_tensor(out, "out");
    const npu::model::DType result = npu::kernels::ternary_result_dtype(op, a, b, c, out->dtype);
    npu::emu::check_pointwise_out(out, npu::kernels::broadcast_operands({&a, &b, &c}), result);
    return std::function<void()>(
        [op, a = std::move(a), b = std::move(b), c = std::move(c), multiplier, o = out->view()] { npu::kernels::ternary(op, o, a, b, c, multiplier); });
  });
}

}  // namespace

extern "C" {

aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor* condition, const aclTensor* self, const aclTensor* other,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnSWhere", TernaryFn::Where, OperandArg(condition, "condition"), OperandArg(self, "self"),
                       OperandArg(other, "other"), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnSWhere)

aclnnStatus aclnnLerpGetWorkspaceSize(const aclTensor* self, const aclTensor* end, const aclTensor* weight,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnLerp", TernaryFn::Lerp, OperandArg(self, "self"), OperandArg(end, "end"),
                       OperandArg(weight, "weight"), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnLerp)

aclnnStatus aclnnLerpsGetWorkspaceSize(const aclTensor* self, const aclTensor* end, const aclScalar* weight,
                                       aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnLerps", TernaryFn::Lerp, OperandArg(self, "self"), OperandArg(end, "end"),
                       OperandArg(weight, "weight"), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnLerps)

aclnnStatus aclnnAddcmulGetWorkspaceSize(const aclTensor* self, const aclTensor* tensor1, const aclTensor* tensor2,
                                         const aclScalar* value, aclTensor* out, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return ternary_entry("aclnnAddcmul", TernaryFn::Addcmul, OperandArg(self, "self"), OperandArg(tensor1, "tensor1"),
                       OperandArg(tensor2, "tensor2"), OperandArg(value, "value"), out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAddcmul)

aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor* self, const aclTensor* tensor1, const aclTensor* tensor2,
                                         const aclScalar* value, aclTensor* out, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return ternary_entry("aclnnAddcdiv", TernaryFn::Addcdiv, OperandArg(self, "self"), OperandArg(tensor1, "tensor1"),
                       OperandArg(tensor2, "tensor2"), OperandArg(value, "value"), out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAddcdiv)

aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin,
                                       const aclScalar* clipValueMax, aclTensor* out, uint64_t* workspaceSize,
                                       aclOpExecutor** executor) {
  return ternary_entry("aclnnClamp", TernaryFn::Clamp, OperandArg(self, "self"),
                       OperandArg(clipValueMin, "clipValueMin", kOptional),
                       OperandArg(clipValueMax, "clipValueMax", kOptional), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClamp)

aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* min, const aclTensor* max,
                                             aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnClampTensor", TernaryFn::Clamp, OperandArg(self, "self"),
                       OperandArg(min, "min", kOptional), OperandArg(max, "max", kOptional), kNone, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClampTensor)

aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin, aclTensor* out,
                                          uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnClampMin", TernaryFn::Clamp, OperandArg(self, "self"),
                       OperandArg(clipValueMin, "clipValueMin"), kNone, kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClampMin)

aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMax, aclTensor* out,
                                          uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnClampMax", TernaryFn::Clamp, OperandArg(self, "self"), kNone,
                       OperandArg(clipValueMax, "clipValueMax"), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClampMax)

aclnnStatus aclnnClampMinTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* clipValueMin, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnClampMinTensor", TernaryFn::Clamp, OperandArg(self, "self"),
                       OperandArg(clipValueMin, "clipValueMin"), kNone, kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClampMinTensor)

aclnnStatus aclnnClampMaxTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* max, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  return ternary_entry("aclnnClampMaxTensor", TernaryFn::Clamp, OperandArg(self, "self"), kNone,
                       OperandArg(max, "max"), kNone, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnClampMaxTensor)

}  // extern "C"
