// Streams and events through the ACL C API: in-order execution, cross-stream
// ordering by events, query states and timing. The emulator's kernel latency
// knob (aclemuSetKernelDelayUs) makes asynchrony observable without sleeping
// in the test: it is the emulated device that is slow.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::EventHandle;
using acl_test::KernelDelay;
using acl_test::read_floats;
using acl_test::StreamHandle;
using acl_test::Tensor1D;

TEST_CASE("tasks on one stream run in submission order", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(200);  // slow kernels, so a reordering would show
  constexpr int64_t n = 64;
  DeviceBuffer buf(n * sizeof(float));
  Tensor1D x(buf.get(), n);
  StreamHandle s;
  REQUIRE(acl_test::launch_fill(x, 0.0, s.get()) == ACL_SUCCESS);
  // x = (x + 1) * 2, ten times: 2046 only if every op saw its predecessor's result.
  for (int i = 0; i < 10; ++i) {
    REQUIRE(acl_test::launch_adds(x, x, 1.0, s.get()) == ACL_SUCCESS);
    REQUIRE(acl_test::launch_muls(x, x, 2.0, s.get()) == ACL_SUCCESS);
  }
  REQUIRE(read_floats(buf.get(), n, s.get()) == std::vector<float>(n, 2046.0f));
}

TEST_CASE("copies queue behind kernels on the same stream", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(20000);
  constexpr int64_t n = 16;
  DeviceBuffer buf(n * sizeof(float));
  REQUIRE(aclrtMemset(buf.get(), buf.bytes(), 0, buf.bytes()) == ACL_SUCCESS);
  Tensor1D x(buf.get(), n);
  StreamHandle s;
  REQUIRE(acl_test::launch_fill(x, 7.0, s.get()) == ACL_SUCCESS);
  // The D2H copy is queued behind a 20 ms kernel; it must not read the zeros.
  REQUIRE(read_floats(buf.get(), n, s.get()) == std::vector<float>(n, 7.0f));
}

TEST_CASE("an event orders a consumer on stream B after a producer on stream A", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(20000);
  constexpr int64_t n = 1024;
  DeviceBuffer xbuf(n * sizeof(float)), ybuf(n * sizeof(float));
  REQUIRE(aclrtMemset(xbuf.get(), xbuf.bytes(), 0, xbuf.bytes()) == ACL_SUCCESS);
  Tensor1D x(xbuf.get(), n), y(ybuf.get(), n);
  StreamHandle a, b;
  EventHandle produced;

  REQUIRE(acl_test::launch_fill(x, 3.0, a.get()) == ACL_SUCCESS);  // takes >= 20 ms
  REQUIRE(aclrtRecordEvent(produced.get(), a.get()) == ACL_SUCCESS);
  REQUIRE(aclrtStreamWaitEvent(b.get(), produced.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_adds(y, x, 1.0, b.get()) == ACL_SUCCESS);
  // Only B is synchronized: y is right only if B waited for A's fill.
  REQUIRE(read_floats(ybuf.get(), n, b.get()) == std::vector<float>(n, 4.0f));
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  REQUIRE(aclrtQueryEventStatus(produced.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
}

TEST_CASE("waiting on a never-recorded event does not block", "[streams]") {
  acl_test::use_device0();
  StreamHandle s;
  EventHandle never;
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  REQUIRE(aclrtQueryEventStatus(never.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
  REQUIRE(aclrtStreamWaitEvent(s.get(), never.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeEvent(never.get()) == ACL_SUCCESS);
}

TEST_CASE("aclrtStreamQuery is NOT_READY behind a slow kernel and COMPLETE after synchronize", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(50000);
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  StreamHandle s;
  EventHandle after;
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  REQUIRE(aclrtStreamQuery(s.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_STREAM_STATUS_COMPLETE);  // a new stream is idle

  REQUIRE(acl_test::launch_fill(x, 1.0, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(after.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtStreamQuery(s.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_STREAM_STATUS_NOT_READY);
  aclrtEventRecordedStatus ev = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  REQUIRE(aclrtQueryEventStatus(after.get(), &ev) == ACL_SUCCESS);
  REQUIRE(ev == ACL_EVENT_RECORDED_STATUS_NOT_READY);

  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtStreamQuery(s.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_STREAM_STATUS_COMPLETE);
  REQUIRE(aclrtQueryEventStatus(after.get(), &ev) == ACL_SUCCESS);
  REQUIRE(ev == ACL_EVENT_RECORDED_STATUS_COMPLETE);
  REQUIRE(aclrtStreamQuery(s.get(), nullptr) == ACL_ERROR_INVALID_PARAM);
  acl_test::recent_error();
}

TEST_CASE("aclrtSynchronizeEvent waits for the record, not for the whole stream", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(50000);
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  StreamHandle s;
  EventHandle mid;
  REQUIRE(aclrtRecordEvent(mid.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(x, 2.0, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeEvent(mid.get()) == ACL_SUCCESS);
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  REQUIRE(aclrtStreamQuery(s.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_STREAM_STATUS_NOT_READY);  // the 50 ms fill is still running
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
}

TEST_CASE("event elapsed times are positive and ordered", "[streams]") {
  acl_test::use_device0();
  constexpr uint64_t kDelayUs = 5000;
  KernelDelay delay(kDelayUs);
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  StreamHandle s;
  EventHandle e0, e1, e2;
  REQUIRE(aclrtRecordEvent(e0.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(x, 1.0, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(e1.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(x, 2.0, s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(e2.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeEvent(e2.get()) == ACL_SUCCESS);

  float t01 = 0, t02 = 0, t12 = 0;
  REQUIRE(aclrtEventElapsedTime(&t01, e0.get(), e1.get()) == ACL_SUCCESS);
  REQUIRE(aclrtEventElapsedTime(&t02, e0.get(), e2.get()) == ACL_SUCCESS);
  REQUIRE(aclrtEventElapsedTime(&t12, e1.get(), e2.get()) == ACL_SUCCESS);
  // Each interval holds one kernel of at least kDelayUs.
  REQUIRE(t01 >= kDelayUs / 1000.0f * 0.999f);
  REQUIRE(t12 >= kDelayUs / 1000.0f * 0.999f);
  REQUIRE(t02 > t01);
  REQUIRE(t02 == Approx(t01 + t12).margin(1e-3));
}

TEST_CASE("elapsed time needs timing events that completed", "[streams]") {
  acl_test::use_device0();
  StreamHandle s;
  EventHandle timed, untimed(ACL_EVENT_SYNC), never;
  REQUIRE(aclrtRecordEvent(timed.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(untimed.get(), s.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  float ms = 0;
  REQUIRE(aclrtEventElapsedTime(&ms, timed.get(), untimed.get()) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(acl_test::recent_error().find("ACL_EVENT_TIME_LINE") != std::string::npos);
  REQUIRE(aclrtEventElapsedTime(&ms, timed.get(), never.get()) == ACL_ERROR_RT_EVENT_NOT_RECORD);
  REQUIRE(acl_test::recent_error().find("aclrtEventElapsedTime") != std::string::npos);
}

TEST_CASE("the default stream (nullptr) is a working stream of the current device", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(1000);
  constexpr int64_t n = 8;
  DeviceBuffer buf(n * sizeof(float));
  Tensor1D x(buf.get(), n);
  EventHandle done;
  REQUIRE(acl_test::launch_fill(x, 5.0, nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(done.get(), nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeEvent(done.get()) == ACL_SUCCESS);
  REQUIRE(read_floats(buf.get(), n, nullptr) == std::vector<float>(n, 5.0f));
  REQUIRE(aclrtDestroyStream(nullptr) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(acl_test::recent_error().find("default stream") != std::string::npos);
}

TEST_CASE("aclrtSynchronizeDevice waits for every stream of the device", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(10000);
  DeviceBuffer buf(3 * 64);
  StreamHandle s1, s2;
  Tensor1D a(buf.get(), 16), b(static_cast<char*>(buf.get()) + 64, 16), c(static_cast<char*>(buf.get()) + 128, 16);
  REQUIRE(acl_test::launch_fill(a, 1.0, s1.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(b, 2.0, s2.get()) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(c, 3.0, nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
  for (aclrtStream st : {s1.get(), s2.get(), static_cast<aclrtStream>(nullptr)}) {
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    REQUIRE(aclrtStreamQuery(st, &status) == ACL_SUCCESS);
    REQUIRE(status == ACL_STREAM_STATUS_COMPLETE);
  }
}

TEST_CASE("a stream created with config works like any other", "[streams]") {
  acl_test::use_device0();
  aclrtStream s = nullptr;
  REQUIRE(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH) == ACL_SUCCESS);
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  REQUIRE(acl_test::launch_fill(x, 9.0, s) == ACL_SUCCESS);
  REQUIRE(read_floats(buf.get(), 16, s) == std::vector<float>(16, 9.0f));
  REQUIRE(aclrtDestroyStream(s) == ACL_SUCCESS);
  REQUIRE(aclrtCreateStream(nullptr) == ACL_ERROR_INVALID_PARAM);
  acl_test::recent_error();
}
