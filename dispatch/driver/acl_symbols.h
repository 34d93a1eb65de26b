// Every ACL function the dispatch layer calls, as an X-macro list. Adding a
// call to a new ACL function = one line here (and its declaration in
// include/acl/). The driver resolves each name with dlsym at load time.
#pragma once

#include "acl/acl_emu_ext.h"
#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_ops.h"
#include "dispatch/aclnn_op_list.h"
#include "acl/aclnn_copy.h"
#include "acl/aclnn_factory.h"
#include "acl/aclnn_format_cast.h"
#include "acl/aclnn_index.h"
#include "acl/aclnn_random.h"
#include "acl/aclnn_reduce.h"
#include "acl/aclnn_shape.h"
#include "acl/aclnn_sort.h"
#include "acl/aclnn_ternary.h"
#include "acl/aclnn_unary.h"

// Runtime (libascendcl.so on Ascend).
#define NPU_ACL_RUNTIME_SYMBOLS(X) \
  X(aclInit)                       \
  X(aclFinalize)                   \
  X(aclGetRecentErrMsg)            \
  X(aclrtSetDevice)                \
  X(aclrtGetDevice)                \
  X(aclrtResetDevice)              \
  X(aclrtGetDeviceCount)           \
  X(aclrtSynchronizeDevice)        \
  X(aclrtGetSocName)               \
  X(aclrtGetMemInfo)               \
  X(aclrtMalloc)                   \
  X(aclrtFree)                     \
  X(aclrtMallocHost)               \
  X(aclrtFreeHost)                 \
  X(aclrtMemcpy)                   \
  X(aclrtMemset)                   \
  X(aclrtMemcpyAsync)              \
  X(aclrtMemsetAsync)              \
  X(aclrtCreateStream)             \
  X(aclrtCreateStreamWithConfig)   \
  X(aclrtDestroyStream)            \
  X(aclrtSynchronizeStream)        \
  X(aclrtStreamQuery)              \
  X(aclrtStreamWaitEvent)          \
  X(aclrtCreateEvent)              \
  X(aclrtCreateEventWithFlag)      \
  X(aclrtRecordEvent)              \
  X(aclrtQueryEventStatus)         \
  X(aclrtSynchronizeEvent)         \
  X(aclrtEventElapsedTime)         \
  X(aclrtDestroyEvent)

// Tensor descriptions (libnnopbase.so on Ascend).
#define NPU_ACL_TENSOR_SYMBOLS(X) \
  X(aclCreateTensor)              \
  X(aclDestroyTensor)             \
  X(aclCreateScalar)              \
  X(aclDestroyScalar)             \
  X(aclCreateIntArray)            \
  X(aclDestroyIntArray)           \
  X(aclCreateTensorList)          \
  X(aclDestroyTensorList)         \
  X(aclGetViewShape)

// Op pairs (libopapi.so on Ascend): list the op name once; the driver
// resolves <name>GetWorkspaceSize and <name>. Op symbols are optional (a
// CANN version may lack an op): ops described by an AclnnCapability
// (dispatch/fallback/capability.h) ask NPU_ACLNN_PRESENT before launching and
// fall back; any other op fails when first run, naming the missing symbol.
// Pointwise, copies and factories.
#define NPU_ACLNN_POINTWISE_OPS(X)       \
  X(aclnnAbs)                            \
  X(aclnnNeg)                            \
  X(aclnnExp)                            \
  X(aclnnExpm1)                          \
  X(aclnnLog)                            \
  X(aclnnLog1p)                          \
  X(aclnnLog2)                           \
  X(aclnnSqrt)                           \
  X(aclnnRsqrt)                          \
  X(aclnnSin)                            \
  X(aclnnCos)                            \
  X(aclnnTan)                            \
  X(aclnnTanh)                           \
  X(aclnnSigmoid)                        \
  X(aclnnRelu)                           \
  X(aclnnGelu)                           \
  X(aclnnSilu)                           \
  X(aclnnErf)                            \
  X(aclnnFloor)                          \
  X(aclnnCeil)                           \
  X(aclnnRound)                          \
  X(aclnnTrunc)                          \
  X(aclnnSign)                           \
  X(aclnnReciprocal)                     \
  X(aclnnBitwiseNot)                     \
  X(aclnnLogicalNot)                     \
  X(aclnnIsNan)                          \
  X(aclnnIsInf)                          \
  X(aclnnGeluV2)                         \
  X(aclnnRoundDecimals)                  \
  X(aclnnNanToNum)                       \
  X(aclnnCast)                           \
  X(aclnnSWhere)                         \
  X(aclnnLerp)                           \
  X(aclnnLerps)                          \
  X(aclnnAddcmul)                        \
  X(aclnnAddcdiv)                        \
  X(aclnnClamp)                          \
  X(aclnnClampTensor)                    \
  X(aclnnClampMin)                       \
  X(aclnnClampMax)                       \
  X(aclnnClampMinTensor)                 \
  X(aclnnClampMaxTensor)                 \
  X(aclnnArange)                         \
  X(aclnnLinspace)                       \
  X(aclnnEye)                            \
  X(aclnnInplaceCopy)                    \
  X(aclnnInplaceFillScalar)              \
  X(aclnnInplaceFillTensor)              \
  X(aclnnInplaceZero)

// Reductions, scans, indexing, shape and sort.
#define NPU_ACLNN_REDUCE_INDEX_OPS(X)    \
  X(aclnnIndexSelect)                    \
  X(aclnnGather)                         \
  X(aclnnScatter)                        \
  X(aclnnScatterValue)                   \
  X(aclnnScatterAdd)                     \
  X(aclnnScatterReduce)                  \
  X(aclnnIndex)                          \
  X(aclnnIndexPutImpl)                   \
  X(aclnnInplaceMaskedFillScalar)        \
  X(aclnnMaskedSelect)                   \
  X(aclnnNonzero)                        \
  X(aclnnTake)                           \
  X(aclnnCat)                            \
  X(aclnnStack)                          \
  X(aclnnFlip)                           \
  X(aclnnRoll)                           \
  X(aclnnRepeat)                         \
  X(aclnnTril)                           \
  X(aclnnTriu)                           \
  X(aclnnSort)                           \
  X(aclnnArgsort)                        \
  X(aclnnTopk)

// Format casts and random numbers.
#define NPU_ACLNN_FORMAT_RANDOM_OPS(X)   \
  X(aclnnNpuFormatCast)                  \
  X(aclnnInplaceUniform)                 \
  X(aclnnInplaceNormal)                  \
  X(aclnnInplaceRandom)                  \
  X(aclnnInplaceBernoulli)               \
  X(aclnnInplaceBernoulliTensor)         \
  X(aclnnRandperm)                       \
  X(aclnnInplaceExponential)             \
  X(aclnnDropout)

#define NPU_ACLNN_OPS(X)     \
  NPU_ACLNN_TABLE_OPS(X)       \
  NPU_ACLNN_POINTWISE_OPS(X)    \
  NPU_ACLNN_REDUCE_INDEX_OPS(X) \
  NPU_ACLNN_FORMAT_RANDOM_OPS(X)

// Emulator-only extensions: optional, absent on real CANN.
#define NPU_ACL_EMU_SYMBOLS(X) \
  X(aclemuSetKernelDelayUs)    \
  X(aclemuGetKernelDelayUs)
