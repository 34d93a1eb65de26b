// The aclnn tensor-description API (aclCreateTensor and friends), with CANN's
// public signatures. On Ascend these live in libnnopbase.so.
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t* stride, int64_t offset, aclFormat format,
                                               const int64_t* storageDims, uint64_t storageDimsNum,
                                               void* tensorData);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                                                   uint64_t* storageDimsNum);
// The tensor's current view shape (new[]-allocated, caller delete[]s). Ops
// with data-dependent output sizes narrow it when they run.
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum);
ACL_FUNC_VISIBILITY aclScalar* aclCreateScalar(void* value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar* scalar);
ACL_FUNC_VISIBILITY aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray* array);
// Flags such as a backward op's outputMask (which gradients to compute).
ACL_FUNC_VISIBILITY aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);
// Entries may be null (aclnnIndex reads a null entry as ':').
ACL_FUNC_VISIBILITY aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList* array);
// One host scalar per tensor of a list (the foreach ops' ScalarList forms);
// the list owns the scalars: aclDestroyScalarList destroys them too.
ACL_FUNC_VISIBILITY aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList* array);

// The launch half of every aclnn pair: runs the prepared executor on `stream`.
#define ACLNN_LAUNCH_SIGNATURE(name) \
  ACL_FUNC_VISIBILITY aclnnStatus name(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, \
                                       aclrtStream stream)

#ifdef __cplusplus
}
#endif
