// aclnn entries of the binary pointwise family (including aclnnAdd/Adds/Mul/
// Muls of aclnn_arith.h). Each entry names its operands and hands them to one
// generic maker; the per-op lines below are the whole table.
#include "acl/aclnn_arith.h"
#include "acl/aclnn_binary.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "emulator/ops/pointwise_entry.h"
#include "kernels/pointwise/binary_ops.h"

using npu::emu::OperandArg;
using npu::kernels::BinaryFn;

namespace {

// The alpha of entries that have none.
const OperandArg kNoAlpha(static_cast<const aclScalar*>(nullptr), "alpha", true);

aclnnStatus binary_entry(const char* api, BinaryFn op, const OperandArg& self, const OperandArg& other,
                         const OperandArg& alpha, aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  const npu::emu::FormatArgs params{npu::emu::TensorIn{self.tensor(), self.name()},
                                    npu::emu::TensorIn{other.tensor(), other.name()},
                                    npu::emu::TensorOut{out, "out"}};
  return npu::emu::prepare_op(api, workspace_size, executor, params,
                              [&](const aclTensor* self_t, const aclTensor* other_t, aclTensor* out_t) {
    // Not const: moved into the task (each operand's view owns two vectors).
    npu::kernels::Operand a = self.with_tensor(self_t).resolve(), b = other.with_tensor(other_t).resolve();
    const npu::kernels::Operand alpha_arg = alpha.resolve();
    const npu::kernels::Scalar al = alpha_arg.present() ? alpha_arg.scalar() : npu::kernels::Scalar::from_int(1);
    npu::emu::require_tensor(out_t, "out");
    const npu::model::DType result = npu::kernels::binary_result_dtype(op, a, b, out_t->dtype, al);
    npu::emu::check_pointwise_out(out_t, npu::kernels::broadcast_operands({&a, &b}), result);
    return std::function<void()>([op, a = std::move(a), b = std::move(b), al, o = out_t->view()] { npu::kernels::binary(op, o, a, b, al); });
  });
}

// aclnnDivMod's rounding mode: 0 none, 1 trunc, 2 floor.
BinaryFn div_mode_op(int mode) {
  switch (mode) {
    case 0: return BinaryFn::Div;
    case 1: return BinaryFn::DivTrunc;
    case 2: return BinaryFn::DivFloor;
  }
  npu::emu::fail(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (none), 1 (trunc) or 2 (floor), got " +
                                              std::to_string(mode));
}

aclnnStatus div_mod_entry(const char* api, const OperandArg& self, const OperandArg& other, int mode, aclTensor* out,
                          uint64_t* workspace_size, aclOpExecutor** executor) {
  BinaryFn op = BinaryFn::Div;
  const aclnnStatus st = npu::emu::guarded(api, [&] { op = div_mode_op(mode); });
  if (st != ACLNN_SUCCESS) return st;
  return binary_entry(api, op, self, other, kNoAlpha, out, workspace_size, executor);
}

}  // namespace

// aclnn<Name>GetWorkspaceSize(SelfT self, OtherT other, out, ...) and its launch, for BinaryFn::<op>.
#define NPU_EMU_BINARY_ENTRY(api, op, SelfT, OtherT)                                                     \
  extern "C" aclnnStatus api##GetWorkspaceSize(const SelfT* self, const OtherT* other, aclTensor* out, \
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {    \
    return binary_entry(#api, BinaryFn::op, OperandArg(self, "self"), OperandArg(other, "other"),       \
                        kNoAlpha, out, workspaceSize, executor);                                        \
  }                                                                                                     \
  NPU_EMU_DEFINE_LAUNCH(api)
#define NPU_EMU_BINARY_TT(api, op) NPU_EMU_BINARY_ENTRY(api, op, aclTensor, aclTensor)
#define NPU_EMU_BINARY_TS(api, op) NPU_EMU_BINARY_ENTRY(api, op, aclTensor, aclScalar)
#define NPU_EMU_BINARY_ST(api, op) NPU_EMU_BINARY_ENTRY(api, op, aclScalar, aclTensor)
// The same with an alpha scalar before out (add/sub).
#define NPU_EMU_BINARY_ALPHA_ENTRY(api, op, OtherT)                                                          \
  extern "C" aclnnStatus api##GetWorkspaceSize(const aclTensor* self, const OtherT* other,                 \
                                               const aclScalar* alpha, aclTensor* out,                     \
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {        \
    return binary_entry(#api, BinaryFn::op, OperandArg(self, "self"), OperandArg(other, "other"),           \
                        OperandArg(alpha, "alpha"), out, workspaceSize, executor);                          \
  }                                                                                                         \
  NPU_EMU_DEFINE_LAUNCH(api)

NPU_EMU_BINARY_ALPHA_ENTRY(aclnnAdd, Add, aclTensor)
NPU_EMU_BINARY_ALPHA_ENTRY(aclnnAdds, Add, aclScalar)
NPU_EMU_BINARY_ALPHA_ENTRY(aclnnSub, Sub, aclTensor)
NPU_EMU_BINARY_ALPHA_ENTRY(aclnnSubs, Sub, aclScalar)
NPU_EMU_BINARY_TT(aclnnMul, Mul)
NPU_EMU_BINARY_TS(aclnnMuls, Mul)
NPU_EMU_BINARY_TT(aclnnDiv, Div)
NPU_EMU_BINARY_TS(aclnnDivs, Div)
NPU_EMU_BINARY_TT(aclnnRemainderTensorTensor, Remainder)
NPU_EMU_BINARY_TS(aclnnRemainderTensorScalar, Remainder)
NPU_EMU_BINARY_ST(aclnnRemainderScalarTensor, Remainder)
NPU_EMU_BINARY_TT(aclnnFmodTensor, Fmod)
NPU_EMU_BINARY_TS(aclnnFmodScalar, Fmod)
NPU_EMU_BINARY_TT(aclnnPowTensorTensor, Pow)
NPU_EMU_BINARY_TS(aclnnPowTensorScalar, Pow)
NPU_EMU_BINARY_ST(aclnnPowScalarTensor, Pow)
NPU_EMU_BINARY_TT(aclnnAtan2, Atan2)
NPU_EMU_BINARY_TT(aclnnMaximum, Maximum)
NPU_EMU_BINARY_TT(aclnnMinimum, Minimum)
NPU_EMU_BINARY_TT(aclnnBitwiseAndTensor, BitwiseAnd)
NPU_EMU_BINARY_TS(aclnnBitwiseAndScalar, BitwiseAnd)
NPU_EMU_BINARY_TT(aclnnBitwiseOrTensor, BitwiseOr)
NPU_EMU_BINARY_TS(aclnnBitwiseOrScalar, BitwiseOr)
NPU_EMU_BINARY_TT(aclnnBitwiseXorTensor, BitwiseXor)
NPU_EMU_BINARY_TS(aclnnBitwiseXorScalar, BitwiseXor)
NPU_EMU_BINARY_TT(aclnnLeftShift, LeftShift)
NPU_EMU_BINARY_TT(aclnnRightShift, RightShift)
NPU_EMU_BINARY_TT(aclnnLogicalAnd, LogicalAnd)
NPU_EMU_BINARY_TT(aclnnLogicalOr, LogicalOr)
NPU_EMU_BINARY_TT(aclnnLogicalXor, LogicalXor)
NPU_EMU_BINARY_TT(aclnnEqTensor, Eq)
NPU_EMU_BINARY_TS(aclnnEqScalar, Eq)
NPU_EMU_BINARY_TT(aclnnNeTensor, Ne)
NPU_EMU_BINARY_TS(aclnnNeScalar, Ne)
NPU_EMU_BINARY_TT(aclnnLtTensor, Lt)
NPU_EMU_BINARY_TS(aclnnLtScalar, Lt)
NPU_EMU_BINARY_TT(aclnnLeTensor, Le)
NPU_EMU_BINARY_TS(aclnnLeScalar, Le)
NPU_EMU_BINARY_TT(aclnnGtTensor, Gt)
NPU_EMU_BINARY_TS(aclnnGtScalar, Gt)
NPU_EMU_BINARY_TT(aclnnGeTensor, Ge)
NPU_EMU_BINARY_TS(aclnnGeScalar, Ge)

extern "C" {

aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int mode, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return div_mod_entry("aclnnDivMod", OperandArg(self, "self"), OperandArg(other, "other"), mode, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnDivMod)

aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, int mode, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return div_mod_entry("aclnnDivMods", OperandArg(self, "self"), OperandArg(other, "other"), mode, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnDivMods)

}  // extern "C"
