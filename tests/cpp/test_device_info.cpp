// aclGetDeviceCapability / aclrtGetDeviceInfo: the emulated chip's SoC
// profile and memory capacity, per device id, from any thread (torch_npu
// reads device properties before it sets a device).
#include <catch2/catch.hpp>

#include <string>
#include <thread>

#include "acl/acl_device_info.h"
#include "acl_test_support.h"
#include "device_model/soc_profile.h"

using acl_test::recent_error;

TEST_CASE("device capabilities are the SoC profile's, on a thread without a current device", "[runtime]") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  const auto& soc = npu::model::soc_profile(aclrtGetSocName());
  int64_t cube = -1, vector = -1, l2 = -1, cube_attr = -1, vector_attr = -1, l2_attr = -1, memory = -1;
  aclError statuses[7] = {};
  std::thread([&] {
    statuses[0] = aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cube);
    statuses[1] = aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &vector);
    statuses[2] = aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &l2);
    statuses[3] = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &cube_attr);
    statuses[4] = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &vector_attr);
    statuses[5] = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &l2_attr);
    statuses[6] = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &memory);
  }).join();
  for (const aclError status : statuses) REQUIRE(status == ACL_SUCCESS);
  REQUIRE(cube == soc.cube_core_num);
  REQUIRE(vector == soc.vector_core_num);
  REQUIRE(l2 == static_cast<int64_t>(soc.l2_cache_bytes));
  REQUIRE(cube_attr == cube);
  REQUIRE(vector_attr == vector);
  REQUIRE(l2_attr == l2);
  // The same capacity aclrtGetMemInfo reports for the device.
  acl_test::use_device0();
  size_t free = 0, total = 0;
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total) == ACL_SUCCESS);
  REQUIRE(memory == static_cast<int64_t>(total));
}

TEST_CASE("device capability queries name a bad device, attribute or null output", "[runtime]") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  uint32_t count = 0;
  REQUIRE(aclrtGetDeviceCount(&count) == ACL_SUCCESS);
  int64_t value = 0;
  REQUIRE(aclGetDeviceCapability(count, ACL_DEVICE_INFO_AI_CORE_NUM, &value) == ACL_ERROR_RT_INVALID_DEVICEID);
  REQUIRE(recent_error().find("invalid device id " + std::to_string(count)) != std::string::npos);
  REQUIRE(aclrtGetDeviceInfo(0xFFFFFFFFu, ACL_DEV_ATTR_CUBE_CORE_NUM, &value) == ACL_ERROR_RT_INVALID_DEVICEID);
  recent_error();
  REQUIRE(aclGetDeviceCapability(0, static_cast<aclDeviceInfo>(7), &value) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(recent_error().find("deviceInfo 7") != std::string::npos);
  REQUIRE(aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(1), &value) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  REQUIRE(recent_error().find("attribute 1 ") != std::string::npos);
  REQUIRE(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, nullptr) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, nullptr) == ACL_ERROR_INVALID_PARAM);
  recent_error();
}
