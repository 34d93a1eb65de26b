// aclnn entries of the binary pointwise family, with CANN's public signatures
// (aclnnLeftShift is an npu-emu name mirroring CANN's aclnnRightShift).
// Semantics are PyTorch CPU's: operands broadcast; the compute dtype is
// torch.result_type of the inputs, where an aclScalar counts as a Python
// number (it only matters when its category - bool < integer < floating <
// complex - is higher); the result is converted into `out`, whose dtype must
// be castable from it (torch.can_cast) and whose shape must be the broadcast
// shape. Integer division or modulo by zero fails at run time with
// "ZeroDivisionError". aclnnAdd/Adds/Mul/Muls are declared in aclnn_arith.h.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

// out = self (op) other
#define ACLNN_DECLARE_BINARY(name)                                                                        \
  ACL_FUNC_VISIBILITY aclnnStatus name##GetWorkspaceSize(const aclTensor* self, const aclTensor* other,   \
                                                         aclTensor* out, uint64_t* workspaceSize,         \
                                                         aclOpExecutor** executor);                       \
  ACLNN_LAUNCH_SIGNATURE(name)
// out = self (op) other, other a scalar
#define ACLNN_DECLARE_BINARY_SCALAR(name)                                                                 \
  ACL_FUNC_VISIBILITY aclnnStatus name##GetWorkspaceSize(const aclTensor* self, const aclScalar* other,   \
                                                         aclTensor* out, uint64_t* workspaceSize,         \
                                                         aclOpExecutor** executor);                       \
  ACLNN_LAUNCH_SIGNATURE(name)

// out = self - alpha * other
ACL_FUNC_VISIBILITY aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                                         const aclScalar* alpha, aclTensor* out,
                                                         uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnSub);
// out = self - alpha * other (scalar other)
ACL_FUNC_VISIBILITY aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                          const aclScalar* alpha, aclTensor* out,
                                                          uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnSubs);

ACLNN_DECLARE_BINARY(aclnnDiv);                         // self / other, true division (integers -> float)
ACLNN_DECLARE_BINARY_SCALAR(aclnnDivs);                 // self / other
// mode 0: self / other; 1: trunc(self / other); 2: floor(self / other) (Python //). Modes 1 and 2 keep
// integer dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int mode,
                                                            aclTensor* out, uint64_t* workspaceSize,
                                                            aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnDivMod);
// aclnnDivMod with a scalar other.
ACL_FUNC_VISIBILITY aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, int mode,
                                                             aclTensor* out, uint64_t* workspaceSize,
                                                             aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnDivMods);
ACLNN_DECLARE_BINARY(aclnnRemainderTensorTensor);       // Python's self % other (sign of other)
ACLNN_DECLARE_BINARY_SCALAR(aclnnRemainderTensorScalar);  // Python's self % other
// Python's self % other with a scalar self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnRemainderScalarTensorGetWorkspaceSize(const aclScalar* self,
                                                                           const aclTensor* other, aclTensor* out,
                                                                           uint64_t* workspaceSize,
                                                                           aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnRemainderScalarTensor);
ACLNN_DECLARE_BINARY(aclnnFmodTensor);                  // C fmod (sign of self)
ACLNN_DECLARE_BINARY_SCALAR(aclnnFmodScalar);           // C fmod (sign of self)
// self ** exponent
ACL_FUNC_VISIBILITY aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* exponent,
                                                                     aclTensor* out, uint64_t* workspaceSize,
                                                                     aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnPowTensorTensor);
// self ** exponent; integer self with a negative integer exponent is rejected, as in PyTorch.
ACL_FUNC_VISIBILITY aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor* self, const aclScalar* exponent,
                                                                     aclTensor* out, uint64_t* workspaceSize,
                                                                     aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnPowTensorScalar);
// self ** exponent with a scalar base.
ACL_FUNC_VISIBILITY aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar* self, const aclTensor* exponent,
                                                                     aclTensor* out, uint64_t* workspaceSize,
                                                                     aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnPowScalarTensor);
ACLNN_DECLARE_BINARY(aclnnAtan2);                       // atan2(self, other) (integers -> float)
ACLNN_DECLARE_BINARY(aclnnMaximum);                     // elementwise max, NaN propagating
ACLNN_DECLARE_BINARY(aclnnMinimum);                     // elementwise min, NaN propagating
ACLNN_DECLARE_BINARY(aclnnBitwiseAndTensor);            // self & other (bool and integers)
ACLNN_DECLARE_BINARY_SCALAR(aclnnBitwiseAndScalar);     // self & other
ACLNN_DECLARE_BINARY(aclnnBitwiseOrTensor);             // self | other
ACLNN_DECLARE_BINARY_SCALAR(aclnnBitwiseOrScalar);      // self | other
ACLNN_DECLARE_BINARY(aclnnBitwiseXorTensor);            // self ^ other
ACLNN_DECLARE_BINARY_SCALAR(aclnnBitwiseXorScalar);     // self ^ other
ACLNN_DECLARE_BINARY(aclnnLeftShift);                   // self << other; 0 when other < 0 or >= bits (npu-emu name)
ACLNN_DECLARE_BINARY(aclnnRightShift);                  // self >> other (arithmetic); sign fill when out of range
ACLNN_DECLARE_BINARY(aclnnLogicalAnd);                  // (self != 0) && (other != 0)
ACLNN_DECLARE_BINARY(aclnnLogicalOr);                   // (self != 0) || (other != 0)
ACLNN_DECLARE_BINARY(aclnnLogicalXor);                  // (self != 0) != (other != 0)
ACLNN_DECLARE_BINARY(aclnnEqTensor);                    // self == other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnEqScalar);             // self == other -> bool
ACLNN_DECLARE_BINARY(aclnnNeTensor);                    // self != other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnNeScalar);             // self != other -> bool
ACLNN_DECLARE_BINARY(aclnnLtTensor);                    // self < other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnLtScalar);             // self < other -> bool
ACLNN_DECLARE_BINARY(aclnnLeTensor);                    // self <= other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnLeScalar);             // self <= other -> bool
ACLNN_DECLARE_BINARY(aclnnGtTensor);                    // self > other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnGtScalar);             // self > other -> bool
ACLNN_DECLARE_BINARY(aclnnGeTensor);                    // self >= other -> bool
ACLNN_DECLARE_BINARY_SCALAR(aclnnGeScalar);             // self >= other -> bool

#ifdef __cplusplus
}
#endif
