// aclnn entries of the elementwise arithmetic family, with CANN's public
// signatures. Each op is a pair: ...GetWorkspaceSize validates and prepares an
// executor; the second call launches it on a stream.
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACLNN_LAUNCH_SIGNATURE(name) \
  ACL_FUNC_VISIBILITY aclnnStatus name(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, \
                                       aclrtStream stream)

// out = self + alpha * other
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                                         const aclScalar* alpha, aclTensor* out,
                                                         uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAdd);
// out = self + alpha * other (scalar other)
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                          const aclScalar* alpha, aclTensor* out,
                                                          uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnAdds);
// out = self * other
ACL_FUNC_VISIBILITY aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                                         aclTensor* out, uint64_t* workspaceSize,
                                                         aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMul);
// out = self * other (scalar other)
ACL_FUNC_VISIBILITY aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                          aclTensor* out, uint64_t* workspaceSize,
                                                          aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnMuls);

#ifdef __cplusplus
}
#endif
