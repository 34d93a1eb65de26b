// aclnn entries of the ternary pointwise family, with CANN's public
// signatures. Operands broadcast together; the compute dtype follows
// torch.result_type (aclScalars count as Python numbers); the result is
// converted into `out`, which must have the broadcast shape and a dtype the
// result can be cast to.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// out = condition ? self : other; condition is bool or uint8.
ACL_FUNC_VISIBILITY aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor* condition, const aclTensor* self,
                                                            const aclTensor* other, aclTensor* out,
                                                            uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnSWhere);
// out = self + weight * (end - self) (tensor weight); floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnLerpGetWorkspaceSize(const aclTensor* self, const aclTensor* end,
                                                          const aclTensor* weight, aclTensor* out,
                                                          uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnLerp);
// out = self + weight * (end - self) (scalar weight, kept in float for half/bfloat16 as PyTorch does).
ACL_FUNC_VISIBILITY aclnnStatus aclnnLerpsGetWorkspaceSize(const aclTensor* self, const aclTensor* end,
                                                           const aclScalar* weight, aclTensor* out,
                                                           uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnLerps);
// out = self + value * tensor1 * tensor2; integer and floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddcmulGetWorkspaceSize(const aclTensor* self, const aclTensor* tensor1,
                                                             const aclTensor* tensor2, const aclScalar* value,
                                                             aclTensor* out, uint64_t* workspaceSize,
                                                             aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAddcmul);
// out = self + value * tensor1 / tensor2; floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor* self, const aclTensor* tensor1,
                                                             const aclTensor* tensor2, const aclScalar* value,
                                                             aclTensor* out, uint64_t* workspaceSize,
                                                             aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAddcdiv);
// out = min(max(self, clipValueMin), clipValueMax); either bound may be null (not both); NaN anywhere gives NaN.
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin,
                                                           const aclScalar* clipValueMax, aclTensor* out,
                                                           uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClamp);
// aclnnClamp with tensor bounds (broadcast with self); either may be null (not both).
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* min,
                                                                 const aclTensor* max, aclTensor* out,
                                                                 uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClampTensor);
// out = max(self, clipValueMin)
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin,
                                                              aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClampMin);
// out = min(self, clipValueMax)
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMax,
                                                              aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClampMax);
// out = max(self, clipValueMin) (tensor bound)
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampMinTensorGetWorkspaceSize(const aclTensor* self,
                                                                    const aclTensor* clipValueMin, aclTensor* out,
                                                                    uint64_t* workspaceSize,
                                                                    aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClampMinTensor);
// out = min(self, max) (tensor bound)
ACL_FUNC_VISIBILITY aclnnStatus aclnnClampMaxTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* max,
                                                                    aclTensor* out, uint64_t* workspaceSize,
                                                                    aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnClampMaxTensor);

#ifdef __cplusplus
}
#endif
