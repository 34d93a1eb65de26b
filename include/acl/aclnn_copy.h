// aclnn entries that move or fill data on the device.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// selfRef = src, element by element; any strides, dtype converted, src broadcast.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src,
                                                                 uint64_t* workspaceSize,
                                                                 aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceCopy);
// selfRef[...] = value
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclScalar* value,
                                                                       uint64_t* workspaceSize,
                                                                       aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceFillScalar);
// selfRef[...] = value's single element (a 0-dim or 1-element device tensor), converted to selfRef's dtype
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillTensorGetWorkspaceSize(aclTensor* selfRef, const aclTensor* value,
                                                                       uint64_t* workspaceSize,
                                                                       aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceFillTensor);
// selfRef[...] = 0
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize,
                                                                 aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceZero);

#ifdef __cplusplus
}
#endif
