// aclnn entries of the shape-and-copy family, with CANN's public signatures.
// Outputs have any strides and must not overlap their inputs, except where
// an entry says otherwise.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// out = torch.cat(tensors, dim); inputs converted to out's dtype; 1-D empty inputs are skipped.
ACL_FUNC_VISIBILITY aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnCat);
// out = torch.stack(tensors, dim); inputs share one shape, converted to out's dtype.
ACL_FUNC_VISIBILITY aclnnStatus aclnnStackGetWorkspaceSize(const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnStack);
// out = self.flip(dims).
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnFlip);
// out = x.roll(shifts, dims); empty dims rolls the flattened tensor by the single shift.
ACL_FUNC_VISIBILITY aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor* x, const aclIntArray* shifts, const aclIntArray* dims, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnRoll);
// out = self.repeat(repeats); len(repeats) >= self.dim().
ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor* self, const aclIntArray* repeats, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnRepeat);
// out = self.tril(diagonal) over the last two dims; out may be self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor* self, int64_t diagonal, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnTril);
// out = self.triu(diagonal) over the last two dims; out may be self.
ACL_FUNC_VISIBILITY aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor* self, int64_t diagonal, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnTriu);

#ifdef __cplusplus
}
#endif
