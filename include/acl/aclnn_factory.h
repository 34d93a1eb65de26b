// aclnn entries that create values from parameters, with CANN's public
// signatures. `out` is allocated by the caller with the exact shape; the
// values are PyTorch CPU's (torch.arange / linspace / eye) for out's dtype.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// out[i] = start + i * step, out 1-D with exactly ceil((end - start) / step) elements; not bool/complex.
ACL_FUNC_VISIBILITY aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar* start, const aclScalar* end,
                                                            const aclScalar* step, aclTensor* out,
                                                            uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnArange);
// steps evenly spaced values from start to end inclusive; out 1-D of `steps` elements; not bool/complex.
ACL_FUNC_VISIBILITY aclnnStatus aclnnLinspaceGetWorkspaceSize(const aclScalar* start, const aclScalar* end,
                                                              int64_t steps, aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnLinspace);
// out = n x m identity matrix (out must be [n, m]); any dtype.
ACL_FUNC_VISIBILITY aclnnStatus aclnnEyeGetWorkspaceSize(int64_t n, int64_t m, aclTensor* out,
                                                         uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnEye);

#ifdef __cplusplus
}
#endif
