// aclnn entries of the sort family, with CANN's public signatures. Every
// sort is stable (ties keep their order, also with stable=false); NaN sorts
// as the largest value. Not for complex tensors.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// (valuesOut, indicesOut) = self.sort(dim, descending, stable); indicesOut int64.
ACL_FUNC_VISIBILITY aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor* self, bool stable, int64_t dim, bool descending, aclTensor* valuesOut, aclTensor* indicesOut, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnSort);
// out = self.argsort(dim, descending) (int64, stable).
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor* self, int64_t dim, bool descending, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnArgsort);
// (valuesOut, indicesOut) = self.topk(k, dim, largest, sorted); always returned sorted, ties by position.
ACL_FUNC_VISIBILITY aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted, aclTensor* valuesOut, aclTensor* indicesOut, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnTopk);

#ifdef __cplusplus
}
#endif
