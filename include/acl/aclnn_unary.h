// aclnn entries of the unary pointwise family (out = f(self)), with CANN's
// public signatures; aclnnIsNan is an npu-emu name (CANN has no such entry).
// Semantics and dtypes are PyTorch CPU's: integer/bool inputs of the
// transcendental ops produce floats, comparisons/predicates produce bool.
// `out` must have self's shape; its dtype may be any dtype the result can be
// cast to (torch.can_cast), the result is converted into it.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACLNN_DECLARE_UNARY(name)                                                                                 \
  ACL_FUNC_VISIBILITY aclnnStatus name##GetWorkspaceSize(const aclTensor* self, aclTensor* out,                   \
                                                         uint64_t* workspaceSize, aclOpExecutor** executor); \
  ACLNN_LAUNCH_SIGNATURE(name)

ACLNN_DECLARE_UNARY(aclnnAbs);         // |self|; complex64 -> float32
ACLNN_DECLARE_UNARY(aclnnNeg);         // -self
ACLNN_DECLARE_UNARY(aclnnExp);         // e^self
ACLNN_DECLARE_UNARY(aclnnExpm1);       // e^self - 1
ACLNN_DECLARE_UNARY(aclnnLog);         // natural log
ACLNN_DECLARE_UNARY(aclnnLog1p);       // log(1 + self)
ACLNN_DECLARE_UNARY(aclnnLog2);        // base-2 log
ACLNN_DECLARE_UNARY(aclnnSqrt);        // square root
ACLNN_DECLARE_UNARY(aclnnRsqrt);       // 1 / sqrt(self)
ACLNN_DECLARE_UNARY(aclnnSin);         // sine
ACLNN_DECLARE_UNARY(aclnnCos);         // cosine
ACLNN_DECLARE_UNARY(aclnnTan);         // tangent
ACLNN_DECLARE_UNARY(aclnnTanh);        // hyperbolic tangent
ACLNN_DECLARE_UNARY(aclnnSigmoid);     // 1 / (1 + e^-self)
ACLNN_DECLARE_UNARY(aclnnRelu);        // max(self, 0), NaN kept
ACLNN_DECLARE_UNARY(aclnnGelu);        // self * Phi(self), exact erf form (torch.nn.functional.gelu default)
ACLNN_DECLARE_UNARY(aclnnSilu);        // self * sigmoid(self)
ACLNN_DECLARE_UNARY(aclnnErf);         // error function
ACLNN_DECLARE_UNARY(aclnnFloor);       // round down (identity on integers)
ACLNN_DECLARE_UNARY(aclnnCeil);        // round up (identity on integers)
ACLNN_DECLARE_UNARY(aclnnRound);       // round half to even (identity on integers)
ACLNN_DECLARE_UNARY(aclnnTrunc);       // round toward zero (identity on integers)
ACLNN_DECLARE_UNARY(aclnnSign);        // -1, 0 or 1; sign(NaN) = 0 as on PyTorch CPU
ACLNN_DECLARE_UNARY(aclnnReciprocal);  // 1 / self
ACLNN_DECLARE_UNARY(aclnnBitwiseNot);  // ~self (bool: logical not)
ACLNN_DECLARE_UNARY(aclnnLogicalNot);  // self == 0, any dtype
ACLNN_DECLARE_UNARY(aclnnIsNan);       // self != self, any dtype -> bool (npu-emu name)
ACLNN_DECLARE_UNARY(aclnnIsInf);       // |self| == inf, any dtype -> bool

// y = gelu(x); approximate 0: exact erf form, 1: tanh approximation.
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y,
                                                            uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnGeluV2);
// out = round(self * 10^decimals) / 10^decimals, half to even; floating dtypes only.
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoundDecimalsGetWorkspaceSize(const aclTensor* self, int64_t decimals,
                                                                   aclTensor* out, uint64_t* workspaceSize,
                                                                   aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnRoundDecimals);
// NaN -> nan, +inf -> posinf, -inf -> neginf (floating/complex parts; others copied). A posinf/neginf of
// +-FLT_MAX means "the output dtype's own largest/lowest value", PyTorch's default, so float64 gets DBL_MAX.
ACL_FUNC_VISIBILITY aclnnStatus aclnnNanToNumGetWorkspaceSize(const aclTensor* self, float nan, float posinf,
                                                              float neginf, aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnNanToNum);
// out = self converted to dtype (which must be out's dtype), PyTorch's conversion rules.
ACL_FUNC_VISIBILITY aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, aclDataType dtype, aclTensor* out,
                                                          uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnCast);

#ifdef __cplusplus
}
#endif
