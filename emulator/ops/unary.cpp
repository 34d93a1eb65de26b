// aclnn entries of the unary pointwise family, and aclnnCast. Every entry
// validates its dtypes and shapes at ...GetWorkspaceSize time; the kernel
// reads device memory only when the task runs on the stream.
#include <cfloat>

#include "acl/aclnn_unary.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "emulator/ops/pointwise_entry.h"
#include "kernels/copy/copy.h"
#include "kernels/pointwise/unary_ops.h"

using npu::kernels::UnaryFn;
using npu::kernels::UnaryParams;

namespace {

aclnnStatus unary_entry(const char* api, UnaryFn op, const aclTensor* self, aclTensor* out, uint64_t* workspace_size,
                        aclOpExecutor** executor, const UnaryParams& params = {}) {
  const npu::emu::FormatArgs tensors{npu::emu::TensorIn{self, "self"}, npu::emu::TensorOut{out, "out"}};
  return npu::emu::prepare_op(api, workspace_size, executor, tensors, [&](const aclTensor* self_t, aclTensor* out_t) {
    npu::kernels::Operand x = npu::emu::OperandArg(self_t, "self").resolve();  // moved into the task
    npu::emu::require_tensor(out_t, "out");
    npu::emu::check_pointwise_out(out_t, x.sizes(), npu::kernels::unary_result_dtype(op, x.dtype(), out_t->dtype));
    return std::function<void()>(
        [op, params, in = std::move(x).tensor(), o = out_t->view()] { npu::kernels::unary(op, o, in, params); });
  });
}

// A float parameter of +-FLT_MAX stands for "the dtype's extreme" (nullopt),
// so float64 outputs get DBL_MAX as PyTorch's default does.
std::optional<double> nan_to_num_bound(float v) {
  if (v == FLT_MAX || v == -FLT_MAX) return std::nullopt;
  return v;
}

}  // namespace

// Defines aclnn<Name>GetWorkspaceSize(self, out, ...) and its launch for UnaryFn::<op>.
#define NPU_EMU_UNARY_ENTRY(api, op)                                                                            \
  extern "C" aclnnStatus api##GetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize, \
                                               aclOpExecutor** executor) {                                     \
    return unary_entry(#api, UnaryFn::op, self, out, workspaceSize, executor);                                 \
  }                                                                                                             \
  NPU_EMU_DEFINE_LAUNCH(api)

NPU_EMU_UNARY_ENTRY(aclnnAbs, Abs)
NPU_EMU_UNARY_ENTRY(aclnnNeg, Neg)
NPU_EMU_UNARY_ENTRY(aclnnExp, Exp)
NPU_EMU_UNARY_ENTRY(aclnnExpm1, Expm1)
NPU_EMU_UNARY_ENTRY(aclnnLog, Log)
NPU_EMU_UNARY_ENTRY(aclnnLog1p, Log1p)
NPU_EMU_UNARY_ENTRY(aclnnLog2, Log2)
NPU_EMU_UNARY_ENTRY(aclnnSqrt, Sqrt)
NPU_EMU_UNARY_ENTRY(aclnnRsqrt, Rsqrt)
NPU_EMU_UNARY_ENTRY(aclnnSin, Sin)
NPU_EMU_UNARY_ENTRY(aclnnCos, Cos)
NPU_EMU_UNARY_ENTRY(aclnnTan, Tan)
NPU_EMU_UNARY_ENTRY(aclnnTanh, Tanh)
NPU_EMU_UNARY_ENTRY(aclnnSigmoid, Sigmoid)
NPU_EMU_UNARY_ENTRY(aclnnRelu, Relu)
NPU_EMU_UNARY_ENTRY(aclnnGelu, Gelu)
NPU_EMU_UNARY_ENTRY(aclnnSilu, Silu)
NPU_EMU_UNARY_ENTRY(aclnnErf, Erf)
NPU_EMU_UNARY_ENTRY(aclnnFloor, Floor)
NPU_EMU_UNARY_ENTRY(aclnnCeil, Ceil)
NPU_EMU_UNARY_ENTRY(aclnnRound, Round)
NPU_EMU_UNARY_ENTRY(aclnnTrunc, Trunc)
NPU_EMU_UNARY_ENTRY(aclnnSign, Sign)
NPU_EMU_UNARY_ENTRY(aclnnReciprocal, Reciprocal)
NPU_EMU_UNARY_ENTRY(aclnnBitwiseNot, BitwiseNot)
NPU_EMU_UNARY_ENTRY(aclnnLogicalNot, LogicalNot)
NPU_EMU_UNARY_ENTRY(aclnnIsNan, IsNan)
NPU_EMU_UNARY_ENTRY(aclnnIsInf, IsInf)

extern "C" {

aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (approximate != 0 && approximate != 1) {
    return npu::emu::guarded("aclnnGeluV2", [&] {
      npu::emu::fail(ACLNN_ERR_PARAM_INVALID, "approximate must be 0 (none) or 1 (tanh), got " +
                                                  std::to_string(approximate));
    });
  }
  return unary_entry("aclnnGeluV2", approximate == 1 ? UnaryFn::GeluTanh : UnaryFn::Gelu, x, y, workspaceSize,
                     executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnGeluV2)

aclnnStatus aclnnRoundDecimalsGetWorkspaceSize(const aclTensor* self, int64_t decimals, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  UnaryParams params;
  params.decimals = decimals;
  return unary_entry("aclnnRoundDecimals", UnaryFn::RoundDecimals, self, out, workspaceSize, executor, params);
}
NPU_EMU_DEFINE_LAUNCH(aclnnRoundDecimals)

aclnnStatus aclnnNanToNumGetWorkspaceSize(const aclTensor* self, float nan, float posinf, float neginf,
                                          aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  UnaryParams params;
  params.nan = nan;
  params.posinf = nan_to_num_bound(posinf);
  params.neginf = nan_to_num_bound(neginf);
  return unary_entry("aclnnNanToNum", UnaryFn::NanToNum, self, out, workspaceSize, executor, params);
}
NPU_EMU_DEFINE_LAUNCH(aclnnNanToNum)

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, aclDataType dtype, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  const npu::emu::FormatArgs tensors{npu::emu::TensorIn{self, "self"}, npu::emu::TensorOut{out, "out"}};
  return npu::emu::prepare_op("aclnnCast", workspaceSize, executor, tensors,
                              [&](const aclTensor* self_t, aclTensor* out_t) {
    npu::emu::require_tensor(self_t, "self");
    npu::emu::require_tensor(out_t, "out");
    npu::emu::require_shape(out_t, self_t->view_dims, "out");
    const auto target = npu::model::dtype_from_acl(dtype);
    if (!target || *target != out_t->dtype) {
      npu::emu::fail(ACLNN_ERR_PARAM_INVALID, "dtype " + std::to_string(dtype) + " must be out's dtype " +
                                                  npu::model::dtype_name(out_t->dtype));
    }
    return std::function<void()>([in = self_t->view(), o = out_t->view()] { npu::kernels::copy(o, in); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnCast)

}  // extern "C"
