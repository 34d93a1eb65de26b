// Enum arguments of the C API given values outside their enumerators, as a C
// caller can: each is refused with an error naming the value, and nothing
// reads it as the C++ enum first (UBSan: "load of value ..., which is not a
// valid value for type"; see emulator/c_enum.h). aclrtMemcpyKind is tested
// with the copies (test_runtime_memory.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "acl/acl_device_info.h"
#include "acl/aclnn_base.h"
#include "acl_test_support.h"

using acl_test::recent_error;

namespace {

// Values no enum of the API declares, inside and outside its bit range.
constexpr int kBadValues[] = {-7, 99, 1 << 20, -(1 << 20)};

bool names(const std::string& message, int value) {
  return message.find(" " + std::to_string(value)) != std::string::npos;
}

}  // namespace

TEST_CASE("device queries refuse an unknown aclDeviceInfo or aclrtDevAttr naming it", "[runtime][c_enum]") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  int64_t value = 0;
  for (const int bad : kBadValues) {
    INFO("value " << bad);
    REQUIRE(aclGetDeviceCapability(0, static_cast<aclDeviceInfo>(bad), &value) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(names(recent_error(), bad));
    REQUIRE(aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(bad), &value) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    REQUIRE(names(recent_error(), bad));
  }
}

TEST_CASE("aclCreateTensor and aclCreateScalar refuse an unknown aclDataType naming it", "[runtime][c_enum]") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  const int64_t dims[] = {2};
  const int64_t strides[] = {1};
  float data[2] = {1.0f, 2.0f};
  for (const int bad : kBadValues) {
    INFO("value " << bad);
    const auto dtype = static_cast<aclDataType>(bad);
    REQUIRE(aclCreateTensor(dims, 1, dtype, strides, 0, ACL_FORMAT_ND, dims, 1, data) == nullptr);
    REQUIRE(names(recent_error(), bad));
    REQUIRE(aclCreateScalar(data, dtype) == nullptr);
    REQUIRE(names(recent_error(), bad));
  }
}
