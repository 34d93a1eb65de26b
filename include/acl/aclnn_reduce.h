// aclnn entries of the reduction and scan family, with CANN's public
// signatures. Conventions shared by every entry:
//  - dim lists may be negative and empty (= every dim); repeated or
//    out-of-range dims are ACLNN_ERR_PARAM_INVALID at GetWorkspaceSize time;
//  - `out` has the reduced shape (size-1 dims kept with keepdim) and any
//    strides; its dtype may differ from the natural result (converted);
//  - `dtype` arguments (sum, mean, prod, cumsum, cumprod) choose the compute
//    dtype, as torch's dtype= does: e.g. int32 -> ACL_INT64 accumulates in
//    64 bits, float16 -> ACL_FLOAT computes in float;
//  - floating-point results match PyTorch CPU within rounding; NaN
//    propagates through max/min/amax/amin and wins argmax/argmin (first one).
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// out = self.sum(dim, keepdim, dtype=dtype); any dtype, complex included.
ACL_FUNC_VISIBILITY aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnReduceSum);
// out = self.mean(dim, keepdim, dtype=dtype); dtype floating or complex.
ACL_FUNC_VISIBILITY aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMean);
// out = self.prod(dtype=dtype), over every element; out has shape [] or [1].
ACL_FUNC_VISIBILITY aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor* self, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnProd);
// out = self.prod(dim, keepdim, dtype=dtype).
ACL_FUNC_VISIBILITY aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnProdDim);
// out = self.amax(dim, keepdim); not complex; reduced dims must be non-empty.
ACL_FUNC_VISIBILITY aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAmax);
// out = self.amin(dim, keepdim); not complex; reduced dims must be non-empty.
ACL_FUNC_VISIBILITY aclnnStatus aclnnAminGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAmin);
// (out, indices) = self.max(dim, keepdim); indices int64, first occurrence.
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMaxDim);
// (out, indices) = self.min(dim, keepdim); indices int64, first occurrence.
ACL_FUNC_VISIBILITY aclnnStatus aclnnMinDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMinDim);
// out = self.argmax(dim, keepdim) (int64; flatten self first for dim=None).
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnArgMax);
// out = self.argmin(dim, keepdim) (int64; flatten self first for dim=None).
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgMinGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnArgMin);
// out = self.var(dim, unbiased, keepdim); computes in out's floating dtype.
ACL_FUNC_VISIBILITY aclnnStatus aclnnVarGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool unbiased, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnVar);
// out = self.var(dim, correction=correction, keepdim).
ACL_FUNC_VISIBILITY aclnnStatus aclnnVarCorrectionGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnVarCorrection);
// out = self.std(dim, correction=correction, keepdim).
ACL_FUNC_VISIBILITY aclnnStatus aclnnStdGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnStd);
// out = linalg.vector_norm(self, p, dim, keepdim): p 0, 1, 2, +-inf or any real (pScalar any real dtype).
ACL_FUNC_VISIBILITY aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor* self, const aclScalar* pScalar, const aclIntArray* dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnNorm);
// out = self.all(dim, keepdim) (bool out, or uint8 for uint8 self).
ACL_FUNC_VISIBILITY aclnnStatus aclnnAllGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAll);
// out = self.any(dim, keepdim) (bool out, or uint8 for uint8 self).
ACL_FUNC_VISIBILITY aclnnStatus aclnnAnyGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAny);
// out = self.logsumexp(dim, keepdim); computes in out's floating dtype.
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSumExpGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnLogSumExp);
// out = self.cumsum(dim, dtype=dtype); out has self's shape.
ACL_FUNC_VISIBILITY aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnCumsum);
// out = input.cumprod(dim, dtype=dtype); dim is an integer aclScalar (CANN's signature).
ACL_FUNC_VISIBILITY aclnnStatus aclnnCumprodGetWorkspaceSize(const aclTensor* input, const aclScalar* dim, aclDataType dtype, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnCumprod);

#ifdef __cplusplus
}
#endif
