// aclnnNpuFormatCast: moves a tensor between storage formats (ND <-> FRACTAL_NZ,
// NCHW <-> NC1HWC0, ...), with CANN's public signatures. On Ascend these live
// in libopapi.so.
//
// The sequence is:
//   1. aclnnNpuFormatCastCalculateSizeAndFormat(src, dstFormat, additionalDtype,
//      &dstShape, &dstShapeSize, &actualFormat) - the storage shape and the
//      format the destination will actually have (rank fallbacks applied: NZ
//      below rank 2 and NCHW off rank 4 become ND; an NZ whose C0 differs from
//      the dtype's own becomes the matching FRACTAL_NZ_C0_*);
//   2. allocate dstShape's bytes, aclCreateTensor(viewDims = src's dims,
//      format = actualFormat, storageDims = dstShape);
//   3. aclnnNpuFormatCastGetWorkspaceSize(src, dst, ...) + aclnnNpuFormatCast(...).
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// additionalDtype: the aclDataType whose C0 a FRACTAL_NZ destination uses
// (npu-emu follows torch_npu: C0 = 32 / min(itemsize, 2)); -1 means the
// source's dtype. *dstShape is allocated by this call with new[]; the caller
// releases it with delete[] (as with CANN). Nothing is allocated on failure.
ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor* srcTensor,
                                                                         const int dstFormat, int additionalDtype,
                                                                         int64_t** dstShape, uint64_t* dstShapeSize,
                                                                         int* actualFormat);

// dstTensor must have srcTensor's dims and dtype, and storage dims matching
// its format (as computed by the call above). Source and destination may be
// in any format npu-emu stores (all of the table but UNDEFINED and HWCN);
// private to private goes through the base layout. A base-format tensor may
// be a strided view; a private-format one must be contiguous. The data moves
// when the launch runs on the stream.
ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastGetWorkspaceSize(const aclTensor* srcTensor, aclTensor* dstTensor,
                                                                    uint64_t* workspaceSize,
                                                                    aclOpExecutor** executor);

ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCast(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif
