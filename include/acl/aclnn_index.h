// aclnn entries of the indexing family, with CANN's public signatures.
// Index tensors are int64 or int32 (any strides); an out-of-range index is
// reported when the stream synchronizes (ACLNN_ERR_PARAM_INVALID, message
// naming the index, dim and size); nothing is accessed out of bounds.
//
// Data-dependent output shapes (aclnnNonzero, aclnnMaskedSelect) follow
// CANN's contract: `out` is allocated at the largest possible size; when the
// op has run, the aclTensor `out`'s view shape is narrowed to the actual
// result, read with aclGetViewShape after synchronizing the stream. So `out`
// (the aclTensor object) must stay alive until that call; its data holds
// the result in its leading rows, contiguous per out's strides.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// out = self.index_select(dim, index); index 1-D (or 0-D), values in [0, self.size(dim)).
ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnIndexSelect);
// out = torch.gather(self, dim, index); out has index's shape.
ACL_FUNC_VISIBILITY aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor* self, const int64_t dim, const aclTensor* index, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnGather);
// out = self.scatter(dim, index, src, reduce): reduce 0 = replace, 1 = add, 2 = multiply. out may be self (in place).
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, int64_t reduce, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnScatter);
// out = self.scatter(dim, index, value, reduce), reduce as aclnnScatter. out may be self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value, int64_t reduce, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnScatterValue);
// out = self.scatter_add(dim, index, src). out may be self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterAddGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnScatterAdd);
// out = self.scatter_reduce(dim, index, src, reduce, include_self): reduce 0 none, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean. out may be self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterReduceGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, int64_t reduce, bool includeSelf, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnScatterReduce);
// out = self[indices]: entries int64/int32 index tensors, bool/uint8 masks, or null (= ':'); with a mask, out's shape must match the data (checked at run time).
ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexGetWorkspaceSize(const aclTensor* self, const aclTensorList* indices, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnIndex);
// selfRef[indices] = values (+= with accumulate; repeated indices all add); indices as aclnnIndex; `unsafe` is ignored.
ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor* selfRef, const aclTensorList* indices, const aclTensor* values, const bool accumulate, const bool unsafe, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnIndexPutImpl);
// selfRef.masked_fill_(mask, value); mask bool (or uint8), broadcast to selfRef.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclTensor* mask, const aclScalar* value, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceMaskedFillScalar);
// out = self[mask] (broadcast together); out 1-D of the broadcast numel, narrowed after the run (see above).
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaskedSelectGetWorkspaceSize(const aclTensor* self, const aclTensor* mask, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMaskedSelect);
// out = self.nonzero(); out int64 [self.numel(), self.dim()], narrowed to [count, self.dim()] after the run (see above).
ACL_FUNC_VISIBILITY aclnnStatus aclnnNonzeroGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnNonzero);
// out = self.take(index): flat row-major indexing, negative indices from the end; out has index's shape.
ACL_FUNC_VISIBILITY aclnnStatus aclnnTakeGetWorkspaceSize(const aclTensor* self, const aclTensor* index, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnTake);

#ifdef __cplusplus
}
#endif
