// Peer access and process queries between emulated devices (the capability
// queries themselves, aclGetDeviceCapability and aclrtGetDeviceInfo, are the
// emulator's: emulator/api_device_info.cpp).
#include <unistd.h>

#include <string>

#include "recent_error.h"
#include "standin_types.h"

namespace {

aclError check_device(const char* function, uint32_t deviceId) {
  uint32_t count = 0;
  const aclError ret = aclrtGetDeviceCount(&count);
  if (ret != ACL_SUCCESS) return ret;
  if (deviceId >= count) {
    return npu::standin::fail(ACL_ERROR_RT_INVALID_DEVICEID, std::string(function) + ": device " + std::to_string(deviceId) +
                                                                 " does not exist (device count " + std::to_string(count) + ")");
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

// One process, one emulated host: every device reaches every other.
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  if (canAccessPeer == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceCanAccessPeer: canAccessPeer is null");
  for (const int32_t id : {deviceId, peerDeviceId}) {
    if (id < 0) return npu::standin::fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtDeviceCanAccessPeer: negative device id");
    if (const aclError ret = check_device("aclrtDeviceCanAccessPeer", static_cast<uint32_t>(id)); ret != ACL_SUCCESS) return ret;
  }
  *canAccessPeer = deviceId != peerDeviceId ? 1 : 0;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t) {
  if (peerDeviceId < 0) return npu::standin::fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtDeviceEnablePeerAccess: negative device id");
  return check_device("aclrtDeviceEnablePeerAccess", static_cast<uint32_t>(peerDeviceId));
}

// The "device process" of an emulated device is this process.
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t* pid) {
  if (pid == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceGetBareTgid: pid is null");
  *pid = static_cast<int32_t>(getpid());
  return ACL_SUCCESS;
}

}  // extern "C"
