// The parts of CANN's public C API that torch_npu uses and npu-emu's own
// headers (include/acl) do not declare: the legacy operator API's objects,
// version queries, device attributes, profiling and driver types. Written for
// the stand-in from the public CANN documentation; numeric values follow it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_device_info.h"
#include "acl/acl_rt.h"

extern "C" {

// Objects of the legacy operator interface (aclop*): defined in the stand-in.
struct aclTensorDesc;
struct aclDataBuffer;
struct aclopAttr;

typedef enum {
  ACL_DEBUG = 0,
  ACL_INFO = 1,
  ACL_WARNING = 2,
  ACL_ERROR = 3,
} aclLogLevel;

typedef enum {
  ACL_MEMTYPE_DEVICE = 0,
  ACL_MEMTYPE_HOST = 1,
  ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2,
} aclMemType;

typedef int aclopEngineType;
typedef int aclopCompileType;
typedef int aclCompileOpt;

typedef enum {
  ACL_PKG_NAME_CANN = 0,
  ACL_PKG_NAME_RUNTIME,
  ACL_PKG_NAME_COMPILER,
  ACL_PKG_NAME_HCCL,
  ACL_PKG_NAME_TOOLKIT,
  ACL_PKG_NAME_OPP,
  ACL_PKG_NAME_OPP_KERNEL,
  ACL_PKG_NAME_DRIVER,
} aclCANNPackageName;

#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

typedef struct aclCANNPackageVersion {
  char version[ACL_PKG_VERSION_MAX_SIZE];
  char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

typedef enum {
  ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
  ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
} aclrtEventWaitStatus;

// Handles the stand-in never creates (virtual memory, kernel binaries, models).
typedef void* aclrtDrvMemHandle;
typedef void* aclrtBinHandle;
typedef void* aclrtFuncHandle;
typedef void* aclmdlRI;
typedef void* aclrtTaskGrp;
typedef struct aclrtPhysicalMemProp aclrtPhysicalMemProp;
typedef struct aclrtBinaryLoadOptions aclrtBinaryLoadOptions;
typedef int aclrtMemHandleType;
typedef int aclmdlRICaptureMode;
typedef int aclmdlRICaptureStatus;
typedef int aclrtLastErrLevel;
typedef int aclrtFloatOverflowMode;
typedef int aclrtDevResLimitType;
typedef int aclrtStreamAttr;
typedef int aclrtCmoType;

// Error codes beyond include/acl/acl_base.h.
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_OP_NOT_FOUND 100024
#define ACL_ERROR_RT_REPORT_TIMEOUT 507012


}  // extern "C"

extern "C" {
typedef enum {
  ACL_CANN_ATTR_UNDEFINED = -1,
  ACL_CANN_ATTR_INF_NAN = 0,
  ACL_CANN_ATTR_BF16 = 1,
  ACL_CANN_ATTR_JIT_COMPILE = 2,
} aclCannAttr;
}
