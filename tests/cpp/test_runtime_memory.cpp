// Device and pinned host memory through the ACL C API: allocation, the four
// copy kinds, memset, capacity reporting, and the errors for misuse.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::recent_error;

namespace {
bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}
}  // namespace

TEST_CASE("aclrtMalloc hands out distinct 512-byte aligned device memory", "[runtime]") {
  acl_test::use_device0();
  DeviceBuffer a(1), b(1000), c(4096);
  for (void* p : {a.get(), b.get(), c.get()}) REQUIRE(reinterpret_cast<uintptr_t>(p) % 512 == 0);
  REQUIRE(a.get() != b.get());
  REQUIRE(b.get() != c.get());
}

TEST_CASE("aclrtMalloc rejects null out-pointers and zero sizes", "[runtime]") {
  acl_test::use_device0();
  REQUIRE(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(contains(recent_error(), "aclrtMalloc"));
  void* p = nullptr;
  REQUIRE(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(contains(recent_error(), "size"));
}

TEST_CASE("memcpy round-trips data through all four copy kinds", "[runtime]") {
  acl_test::use_device0();
  constexpr std::size_t n = 1000;
  std::vector<int32_t> src(n), host_copy(n, 0), back(n, 0);
  std::iota(src.begin(), src.end(), -17);
  DeviceBuffer d1(n * 4), d2(n * 4);

  REQUIRE(aclrtMemcpy(host_copy.data(), n * 4, src.data(), n * 4, ACL_MEMCPY_HOST_TO_HOST) == ACL_SUCCESS);
  REQUIRE(host_copy == src);
  REQUIRE(aclrtMemcpy(d1.get(), n * 4, src.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(d2.get(), n * 4, d1.get(), n * 4, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(back.data(), n * 4, d2.get(), n * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  REQUIRE(back == src);
}

TEST_CASE("async memcpy of all four kinds, ordered on one stream", "[runtime]") {
  acl_test::use_device0();
  constexpr std::size_t n = 256;
  std::vector<float> src(n), mid(n, 0), back(n, 0);
  std::iota(src.begin(), src.end(), 0.5f);
  DeviceBuffer d1(n * 4), d2(n * 4);
  acl_test::StreamHandle s;
  REQUIRE(aclrtMemcpyAsync(mid.data(), n * 4, src.data(), n * 4, ACL_MEMCPY_HOST_TO_HOST, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(d1.get(), n * 4, mid.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(d2.get(), n * 4, d1.get(), n * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(back.data(), n * 4, d2.get(), n * 4, ACL_MEMCPY_DEVICE_TO_HOST, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  REQUIRE(back == src);
}

TEST_CASE("aclrtMemset and aclrtMemsetAsync fill bytes", "[runtime]") {
  acl_test::use_device0();
  DeviceBuffer d(100);
  std::vector<uint8_t> host(100, 0);
  REQUIRE(aclrtMemset(d.get(), 100, 0xAB, 100) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(host.data(), 100, d.get(), 100, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  REQUIRE(host == std::vector<uint8_t>(100, 0xAB));

  acl_test::StreamHandle s;
  REQUIRE(aclrtMemsetAsync(d.get(), 100, 0x11, 40, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(host.data(), 100, d.get(), 100, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  REQUIRE(host[0] == 0x11);
  REQUIRE(host[39] == 0x11);
  REQUIRE(host[40] == 0xAB);
}

TEST_CASE("copies to or from memory of the wrong kind are rejected", "[runtime]") {
  acl_test::use_device0();
  DeviceBuffer d(64);
  std::vector<char> host(64, 1);

  SECTION("HOST_TO_DEVICE into host memory") {
    std::vector<char> other(64);
    REQUIRE(aclrtMemcpy(other.data(), 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    const std::string msg = recent_error();
    REQUIRE(contains(msg, "aclrtMemcpy"));
    REQUIRE(contains(msg, "destination is not device memory"));
    REQUIRE(other == std::vector<char>(64, 0));  // nothing was written
  }
  SECTION("DEVICE_TO_HOST from host memory") {
    std::vector<char> other(64);
    REQUIRE(aclrtMemcpy(other.data(), 64, host.data(), 64, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "source is not device memory"));
  }
  SECTION("DEVICE_TO_DEVICE with a host side") {
    REQUIRE(aclrtMemcpy(d.get(), 64, host.data(), 64, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "DEVICE_TO_DEVICE"));
  }
  SECTION("HOST_TO_HOST given a device address") {
    REQUIRE(aclrtMemcpy(host.data(), 64, d.get(), 64, ACL_MEMCPY_HOST_TO_HOST) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "HOST_TO_HOST"));
  }
  SECTION("past the end of a device allocation") {
    std::vector<char> big(4096);
    REQUIRE(aclrtMemcpy(d.get(), 4096, big.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "not device memory of that size"));
  }
  SECTION("count larger than destMax") {
    REQUIRE(aclrtMemcpy(d.get(), 16, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "destMax"));
  }
  SECTION("an unknown copy kind") {
    REQUIRE(aclrtMemcpy(d.get(), 64, host.data(), 64, static_cast<aclrtMemcpyKind>(9)) == ACL_ERROR_INVALID_PARAM);
    const std::string message = recent_error();
    REQUIRE(contains(message, "aclrtMemcpyKind 9"));
    REQUIRE(contains(message, "ACL_MEMCPY_DEVICE_TO_DEVICE (3)"));  // names the allowed kinds
  }
  SECTION("an unknown copy kind is rejected for every copy call and size") {
    // Also an empty copy: the kind is checked before the size. Negative and
    // large values are what a C caller can pass (UBSan found the old code
    // loading them as the enum type).
    for (const int bad : {-1, 4, 9, 1 << 20}) {
      const auto kind = static_cast<aclrtMemcpyKind>(bad);
      REQUIRE(aclrtMemcpy(d.get(), 64, host.data(), 0, kind) == ACL_ERROR_INVALID_PARAM);
      REQUIRE(contains(recent_error(), "aclrtMemcpyKind " + std::to_string(bad)));
      acl_test::StreamHandle s;
      REQUIRE(aclrtMemcpyAsync(d.get(), 64, host.data(), 64, kind, s.get()) == ACL_ERROR_INVALID_PARAM);
      REQUIRE(contains(recent_error(), "aclrtMemcpyKind " + std::to_string(bad)));
      REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);  // nothing was queued
    }
  }
  SECTION("async copy into host memory is rejected at launch") {
    acl_test::StreamHandle s;
    std::vector<char> other(64);
    REQUIRE(aclrtMemcpyAsync(other.data(), 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE, s.get()) ==
            ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "aclrtMemcpyAsync"));
    REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);  // nothing was queued
  }
  SECTION("memset of host memory") {
    REQUIRE(aclrtMemset(host.data(), 64, 0, 64) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "aclrtMemset"));
    REQUIRE(host == std::vector<char>(64, 1));
  }
}

TEST_CASE("aclrtFree reports bad pointers and double frees", "[runtime]") {
  acl_test::use_device0();
  SECTION("double free") {
    DeviceBuffer d(128);
    void* p = d.release();
    REQUIRE(aclrtFree(p) == ACL_SUCCESS);
    REQUIRE(aclrtFree(p) == ACL_ERROR_RT_MEMORY_FREE);
    const std::string msg = recent_error();
    REQUIRE(contains(msg, "aclrtFree"));
    REQUIRE(contains(msg, "double free"));
  }
  SECTION("a host pointer") {
    int on_stack = 0;
    REQUIRE(aclrtFree(&on_stack) == ACL_ERROR_RT_MEMORY_FREE);
    REQUIRE(contains(recent_error(), "not a live device allocation"));
  }
  SECTION("a pointer into the middle of an allocation") {
    DeviceBuffer d(1024);
    REQUIRE(aclrtFree(static_cast<char*>(d.get()) + 8) == ACL_ERROR_RT_MEMORY_FREE);
    REQUIRE(contains(recent_error(), "not a live device allocation"));
  }
  SECTION("null") {
    REQUIRE(aclrtFree(nullptr) == ACL_ERROR_INVALID_PARAM);
    REQUIRE(contains(recent_error(), "aclrtFree"));
  }
}

TEST_CASE("aclrtGetMemInfo reports the capacity and tracks allocations", "[runtime]") {
  acl_test::use_device0();
  size_t free0 = 0, total = 0;
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total) == ACL_SUCCESS);
  if (std::getenv("NPU_EMU_HBM_MB") == nullptr && std::getenv("NPU_EMU_SOC") == nullptr) {
    REQUIRE(total == 64ull << 30);  // Ascend910B1
  }
  REQUIRE(free0 <= total);
  {
    DeviceBuffer d(1 << 20);
    size_t free1 = 0, total1 = 0;
    REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total1) == ACL_SUCCESS);
    REQUIRE(total1 == total);
    REQUIRE(free0 - free1 == (1u << 20));
  }
  size_t free2 = 0;
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total) == ACL_SUCCESS);
  REQUIRE(free2 == free0);
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total) == ACL_ERROR_INVALID_PARAM);
  recent_error();
}

TEST_CASE("a device allocation beyond the capacity fails with ACL_ERROR_RT_MEMORY_ALLOCATION", "[runtime]") {
  acl_test::use_device0();
  size_t free0 = 0, total = 0;
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total) == ACL_SUCCESS);
  void* p = nullptr;
  REQUIRE(aclrtMalloc(&p, total + 1, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_MEMORY_ALLOCATION);
  const std::string msg = recent_error();
  REQUIRE(contains(msg, "aclrtMalloc"));
  REQUIRE(contains(msg, "device memory exhausted"));
  REQUIRE(p == nullptr);
  // Sizes near SIZE_MAX must not wrap around into a tiny allocation.
  for (const size_t huge : {std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max() - 100}) {
    REQUIRE(aclrtMalloc(&p, huge, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_MEMORY_ALLOCATION);
    REQUIRE(contains(recent_error(), "device memory exhausted"));
    REQUIRE(p == nullptr);
  }
  size_t free1 = 0;
  REQUIRE(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total) == ACL_SUCCESS);
  REQUIRE(free1 == free0);  // failed requests reserve nothing
}

TEST_CASE("pinned host memory: MallocHost, copies, FreeHost and its misuse", "[runtime]") {
  acl_test::use_device0();
  void* pinned = nullptr;
  REQUIRE(aclrtMallocHost(&pinned, 256) == ACL_SUCCESS);
  REQUIRE(pinned != nullptr);
  std::memset(pinned, 0x5A, 256);  // host-writable

  DeviceBuffer d(256);
  REQUIRE(aclrtMemcpy(d.get(), 256, pinned, 256, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  std::vector<uint8_t> back(256);
  REQUIRE(aclrtMemcpy(back.data(), 256, d.get(), 256, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  REQUIRE(back == std::vector<uint8_t>(256, 0x5A));

  // Pinned memory is host memory: the device allocator does not own it.
  REQUIRE(aclrtFree(pinned) == ACL_ERROR_RT_MEMORY_FREE);
  recent_error();
  REQUIRE(aclrtFreeHost(pinned) == ACL_SUCCESS);
  REQUIRE(aclrtFreeHost(pinned) == ACL_ERROR_RT_MEMORY_FREE);
  REQUIRE(contains(recent_error(), "aclrtFreeHost"));
  REQUIRE(aclrtFreeHost(d.get()) == ACL_ERROR_RT_MEMORY_FREE);
  recent_error();
  REQUIRE(aclrtMallocHost(nullptr, 16) == ACL_ERROR_INVALID_PARAM);
  recent_error();
}
