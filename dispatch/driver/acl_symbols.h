// Every ACL function the dispatch layer calls, as an X-macro list. Adding a
// call to a new ACL function = one line here (and its declaration in
// include/acl/). The driver resolves each name with dlsym at load time.
#pragma once

#include "acl/acl_emu_ext.h"
#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_ops.h"
#include "dispatch/aclnn_op_list.h"

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
  X(aclCreateBoolArray)           \
  X(aclDestroyBoolArray)          \
  X(aclCreateTensorList)          \
  X(aclDestroyTensorList)         \
  X(aclCreateScalarList)          \
  X(aclDestroyScalarList)         \
  X(aclGetViewShape)

// Op pairs (libopapi.so on Ascend): every aclnn op of the op table
// (ops/table/*.yaml, generated into NPU_ACLNN_TABLE_OPS); the driver resolves
// <name>GetWorkspaceSize and <name>. Op symbols are optional: whether an op
// can run is decided before launching (dispatch/fallback/capability.h), so a
// CANN without one falls back to the CPU instead of failing mid-launch.
#define NPU_ACLNN_OPS(X) NPU_ACLNN_TABLE_OPS(X)

// Emulator-only extensions: optional, absent on real CANN.
#define NPU_ACL_EMU_SYMBOLS(X) \
  X(aclemuSetKernelDelayUs)    \
  X(aclemuGetKernelDelayUs)
