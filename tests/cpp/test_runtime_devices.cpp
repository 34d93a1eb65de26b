// Devices through the ACL C API: count, per-thread current device, invalid ids.
// NPU_EMU_DEVICE_COUNT / ASCEND_RT_VISIBLE_DEVICES / NPU_EMU_SOC are read
// once per process, so these tests check the default configuration.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <thread>

#include "acl_test_support.h"

using acl_test::recent_error;

namespace {
// True when the environment asks for something other than the defaults,
// in which case exact-value checks of the default configuration are skipped.
bool default_config() {
  for (const char* v :
       {"NPU_EMU_DEVICE_COUNT", "ASCEND_RT_VISIBLE_DEVICES", "LOCAL_WORLD_SIZE", "NPU_EMU_SOC", "NPU_EMU_HBM_MB"}) {
    if (std::getenv(v) != nullptr) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("aclInit succeeds and the default configuration has one device", "[runtime]") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  uint32_t count = 0;
  REQUIRE(aclrtGetDeviceCount(&count) == ACL_SUCCESS);
  if (default_config()) REQUIRE(count == 1);
  REQUIRE(count >= 1);
  REQUIRE(aclrtGetDeviceCount(nullptr) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(recent_error().find("count") != std::string::npos);
}

TEST_CASE("aclrtSetDevice/aclrtGetDevice round-trip device 0", "[runtime]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  int32_t id = -1;
  REQUIRE(aclrtGetDevice(&id) == ACL_SUCCESS);
  REQUIRE(id == 0);
  REQUIRE(aclrtGetDevice(nullptr) == ACL_ERROR_INVALID_PARAM);
  recent_error();
}

TEST_CASE("invalid device ids are ACL_ERROR_RT_INVALID_DEVICEID naming the id", "[runtime]") {
  uint32_t count = 0;
  REQUIRE(aclrtGetDeviceCount(&count) == ACL_SUCCESS);
  for (const int32_t bad : {static_cast<int32_t>(count), -1, 16, 1000}) {
    CAPTURE(bad);
    REQUIRE(aclrtSetDevice(bad) == ACL_ERROR_RT_INVALID_DEVICEID);
    const std::string msg = recent_error();
    REQUIRE(msg.find("aclrtSetDevice") != std::string::npos);
    REQUIRE(msg.find("invalid device id " + std::to_string(bad)) != std::string::npos);
  }
  REQUIRE(aclrtResetDevice(static_cast<int32_t>(count)) == ACL_ERROR_RT_INVALID_DEVICEID);
  REQUIRE(recent_error().find("invalid device id " + std::to_string(count)) != std::string::npos);
  // A failed set leaves the current device alone.
  acl_test::use_device0();
  REQUIRE(aclrtSetDevice(7) == ACL_ERROR_RT_INVALID_DEVICEID);
  recent_error();
  int32_t id = -1;
  REQUIRE(aclrtGetDevice(&id) == ACL_SUCCESS);
  REQUIRE(id == 0);
}

TEST_CASE("the current device is per thread", "[runtime]") {
  acl_test::use_device0();
  aclError get_status = ACL_SUCCESS;
  std::string get_message;
  aclError set_status = -1;
  int32_t after_set = -1;
  std::thread([&] {
    int32_t id = -1;
    get_status = aclrtGetDevice(&id);  // nothing set on this thread yet
    get_message = recent_error();
    set_status = aclrtSetDevice(0);
    aclrtGetDevice(&after_set);
  }).join();
  // CANN's code for "no context on this thread": torch_npu's GetDevice
  // treats exactly this code as "device 0, not set yet".
  REQUIRE(get_status == ACL_ERROR_RT_CONTEXT_NULL);
  REQUIRE(get_message.find("aclrtSetDevice") != std::string::npos);
  REQUIRE(set_status == ACL_SUCCESS);
  REQUIRE(after_set == 0);
}

TEST_CASE("aclGetRecentErrMsg is consumed by reading and is per thread", "[runtime]") {
  recent_error();  // start clean
  REQUIRE(aclGetRecentErrMsg() == nullptr);
  REQUIRE(aclrtSetDevice(-5) == ACL_ERROR_RT_INVALID_DEVICEID);
  const char* other_thread_msg = reinterpret_cast<const char*>(1);
  std::thread([&] { other_thread_msg = aclGetRecentErrMsg(); }).join();
  REQUIRE(other_thread_msg == nullptr);
  REQUIRE(recent_error().find("-5") != std::string::npos);
  REQUIRE(aclGetRecentErrMsg() == nullptr);
}

TEST_CASE("aclrtGetSocName names the default SoC", "[runtime]") {
  acl_test::use_device0();
  const char* name = aclrtGetSocName();
  REQUIRE(name != nullptr);
  if (default_config()) REQUIRE(std::string(name) == "Ascend910B1");
  REQUIRE(std::string(name).rfind("Ascend", 0) == 0);
}

TEST_CASE("aclrtSynchronizeDevice and aclrtResetDevice succeed on an idle device", "[runtime]") {
  acl_test::use_device0();
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
  REQUIRE(aclrtResetDevice(0) == ACL_SUCCESS);
  // The emulated device stays usable after a reset (CANN re-inits on demand).
  acl_test::use_device0();
  acl_test::DeviceBuffer buf(64);
  REQUIRE(aclrtMemset(buf.get(), 64, 0, 64) == ACL_SUCCESS);
}
