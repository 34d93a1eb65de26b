// Device capability queries with CANN's public signatures and values:
// aclGetDeviceCapability (core counts, L2 size) and aclrtGetDeviceInfo (the
// same and the memory size, per device id, no current device needed). The
// emulator answers them from the SoC profile of the emulated chip.
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ACL_DEVICE_INFO_UNDEFINED = -1,
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,
  ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
  ACL_DEVICE_INFO_L2_SIZE = 2,
} aclDeviceInfo;

// The attributes the emulator answers; CANN defines more (refused with
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT).
typedef enum {
  ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
  ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
  ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
  ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
  ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
} aclrtDevAttr;

ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value);

#ifdef __cplusplus
}
#endif
