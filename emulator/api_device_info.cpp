// Device capability queries (acl_device_info.h), answered per device id from
// the emulated chip's SoC profile and the device's memory capacity, without
// needing a current device on the calling thread (as in CANN).
#include <cstdint>
#include <string>

#include "acl/acl_device_info.h"
#include "emulator/acl_error.h"
#include "emulator/c_enum.h"
#include "emulator/device.h"

using npu::emu::c_enum_value;
using npu::emu::fail;
using npu::emu::guarded;
using npu::emu::Runtime;

namespace {

npu::emu::Device& device_for(uint32_t deviceId) {
  // An id beyond int32 is as invalid as -1; device() names it in the error.
  return Runtime::get().device(deviceId > INT32_MAX ? -1 : static_cast<int32_t>(deviceId));
}

}  // namespace

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  return guarded("aclGetDeviceCapability", [&] {
    if (value == nullptr) fail(ACL_ERROR_INVALID_PARAM, "value is null");
    const auto& soc = device_for(deviceId).profile();
    // Any int can arrive as the enum (emulator/c_enum.h).
    const int info = c_enum_value(deviceInfo);
    switch (info) {
      case ACL_DEVICE_INFO_AI_CORE_NUM: *value = soc.cube_core_num; return;
      case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = soc.vector_core_num; return;
      case ACL_DEVICE_INFO_L2_SIZE: *value = static_cast<int64_t>(soc.l2_cache_bytes); return;
      case ACL_DEVICE_INFO_UNDEFINED: break;
    }
    fail(ACL_ERROR_INVALID_PARAM, "deviceInfo " + std::to_string(info) +
                                      " is not one of ACL_DEVICE_INFO_AI_CORE_NUM (0), ACL_DEVICE_INFO_VECTOR_CORE_NUM (1), "
                                      "ACL_DEVICE_INFO_L2_SIZE (2)");
  });
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  return guarded("aclrtGetDeviceInfo", [&] {
    if (value == nullptr) fail(ACL_ERROR_INVALID_PARAM, "value is null");
    auto& device = device_for(deviceId);
    const auto& soc = device.profile();
    const int attribute = c_enum_value(attr);
    switch (attribute) {
      case ACL_DEV_ATTR_AICORE_CORE_NUM:
      case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = soc.cube_core_num; return;
      case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = soc.vector_core_num; return;
      case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = static_cast<int64_t>(soc.l2_cache_bytes); return;
      case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = static_cast<int64_t>(device.memory().capacity()); return;
    }
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "attribute " + std::to_string(attribute) +
             " is not emulated (emulated: core counts 101, 102, 201; total memory 301; L2 size 302)");
  });
}
