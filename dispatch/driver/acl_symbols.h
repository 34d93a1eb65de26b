// Every ACL function the dispatch layer calls, as an X-macro list. Adding a
// call to a new ACL function = one line here (and its declaration in
// include/acl/). The driver resolves each name with dlsym at load time.
#pragma once

#include "acl/acl_emu_ext.h"
#include "acl/acl_rt.h"
#include "acl/aclnn_arith.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_copy.h"
#include "acl/aclnn_format_cast.h"
#include "acl/aclnn_random.h"

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
  X(aclDestroyTensorList)

// Op pairs (libopapi.so on Ascend): list the op name once; the driver
// resolves <name>GetWorkspaceSize and <name>.
#define NPU_ACLNN_OPS(X) \
  X(aclnnAdd)            \
  X(aclnnAdds)           \
  X(aclnnMul)            \
  X(aclnnMuls)           \
  X(aclnnInplaceCopy)    \
  X(aclnnInplaceFillScalar) \
  X(aclnnInplaceZero)      \
  X(aclnnNpuFormatCast)    \
  X(aclnnInplaceUniform)   \
  X(aclnnInplaceNormal)    \
  X(aclnnInplaceRandom)    \
  X(aclnnInplaceBernoulli) \
  X(aclnnInplaceBernoulliTensor) \
  X(aclnnRandperm)         \
  X(aclnnInplaceExponential) \
  X(aclnnDropout)

// Emulator-only extensions: optional, absent on real CANN.
#define NPU_ACL_EMU_SYMBOLS(X) \
  X(aclemuSetKernelDelayUs)    \
  X(aclemuGetKernelDelayUs)
