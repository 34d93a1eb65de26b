// Failures on streams: an error inside an asynchronous task is reported by
// the next synchronizing call with the task's name, once, and the stream
// keeps working; stale stream and event handles are clear errors.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "acl_test_support.h"
#include "emulator/device.h"
#include "kernels/core/tensor_view.h"

using acl_test::DeviceBuffer;
using acl_test::EventHandle;
using acl_test::KernelDelay;
using acl_test::read_floats;
using acl_test::recent_error;
using acl_test::StreamHandle;
using acl_test::Tensor1D;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// No aclnn op fails at run time once its GetWorkspaceSize validation passed,
// so the test enqueues a kernel that does, through the emulator's own stream
// (what an op's launch does), under a name of its own.
// `delayed`: whether the emulated kernel latency applies to it.
void launch_faulty_kernel(aclrtStream stream, const char* name, bool kernel_error, bool delayed = true) {
  npu::emu::Runtime::get().stream(stream).submit({name,
                                                  [kernel_error] {
                                                    if (kernel_error) throw npu::kernels::KernelError("injected fault");
                                                    throw std::runtime_error("injected crash");
                                                  },
                                                  delayed});
}

}  // namespace

TEST_CASE("an async kernel error is reported at aclrtSynchronizeStream with the op name", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(2000);
  constexpr int64_t n = 32;
  DeviceBuffer buf(n * sizeof(float));
  Tensor1D x(buf.get(), n);
  StreamHandle s;

  REQUIRE(acl_test::launch_fill(x, 1.0, s.get()) == ACL_SUCCESS);
  launch_faulty_kernel(s.get(), "aclnnTestFault", true);
  REQUIRE(acl_test::launch_adds(x, x, 1.0, s.get()) == ACL_SUCCESS);  // launches still succeed

  REQUIRE(aclrtSynchronizeStream(s.get()) == ACLNN_ERR_PARAM_INVALID);
  const std::string msg = recent_error();
  REQUIRE(contains(msg, "aclrtSynchronizeStream"));
  REQUIRE(contains(msg, "aclnnTestFault"));
  REQUIRE(contains(msg, "injected fault"));

  // Reported once; the stream keeps working, including the op queued after the fault.
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
  REQUIRE(read_floats(buf.get(), n, s.get()) == std::vector<float>(n, 2.0f));
  REQUIRE(acl_test::launch_muls(x, x, 5.0, s.get()) == ACL_SUCCESS);
  REQUIRE(read_floats(buf.get(), n, s.get()) == std::vector<float>(n, 10.0f));
}

TEST_CASE("a crashing kernel is an AI core exception; only the first failure is kept", "[streams]") {
  acl_test::use_device0();
  StreamHandle s;
  launch_faulty_kernel(s.get(), "aclnnFirstFault", false);
  launch_faulty_kernel(s.get(), "aclnnSecondFault", true);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_ERROR_RT_AICORE_EXCEPTION);
  const std::string msg = recent_error();
  REQUIRE(contains(msg, "aclnnFirstFault"));
  REQUIRE(contains(msg, "injected crash"));
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);
}

TEST_CASE("an async error surfaces at device synchronize after every stream finished", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(20000);
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  StreamHandle slow;
  REQUIRE(acl_test::launch_fill(x, 4.0, slow.get()) == ACL_SUCCESS);  // >= 20 ms
  // The default stream is synchronized first and fails at once; that must
  // not stop the device synchronize from waiting for the slow stream.
  launch_faulty_kernel(nullptr, "aclnnDeviceSyncFault", true, false);

  REQUIRE(aclrtSynchronizeDevice() == ACLNN_ERR_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "aclnnDeviceSyncFault"));
  // The failure did not cut the device synchronize short.
  aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
  REQUIRE(aclrtStreamQuery(slow.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_STREAM_STATUS_COMPLETE);
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
}

TEST_CASE("aclrtFree is not blocked by another op's pending error", "[streams]") {
  acl_test::use_device0();
  StreamHandle s;
  DeviceBuffer buf(256);
  launch_faulty_kernel(s.get(), "aclnnPendingFault", true);
  // Freeing waits for queued work but neither fails on nor consumes the error.
  REQUIRE(aclrtFree(buf.release()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACLNN_ERR_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "aclnnPendingFault"));
}

TEST_CASE("an error found at launch time is returned by the launch itself", "[streams]") {
  acl_test::use_device0();
  DeviceBuffer a(4 * sizeof(float)), b(8 * sizeof(float));
  Tensor1D x(a.get(), 4), y(b.get(), 8);
  StreamHandle s;
  REQUIRE(acl_test::launch_adds(y, x, 1.0, s.get()) == ACLNN_ERR_PARAM_INVALID);  // shapes differ
  REQUIRE(contains(recent_error(), "aclnnAdds"));
  REQUIRE(aclnnAdds(nullptr, 0, nullptr, s.get()) == ACLNN_ERR_PARAM_NULLPTR);
  REQUIRE(contains(recent_error(), "executor"));
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);  // nothing was queued
}

TEST_CASE("destroyed streams are rejected by every stream call", "[streams]") {
  acl_test::use_device0();
  StreamHandle live;
  EventHandle ev;
  DeviceBuffer buf(64);
  Tensor1D x(buf.get(), 16);
  REQUIRE(aclrtRecordEvent(ev.get(), live.get()) == ACL_SUCCESS);
  StreamHandle doomed;
  const aclrtStream stale = doomed.destroy();

  REQUIRE(aclrtStreamWaitEvent(stale, ev.get()) == ACL_ERROR_RT_PARAM_INVALID);
  std::string msg = recent_error();
  REQUIRE(contains(msg, "aclrtStreamWaitEvent"));
  REQUIRE(contains(msg, "not a live stream"));
  REQUIRE(aclrtRecordEvent(ev.get(), stale) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "not a live stream"));
  REQUIRE(aclrtSynchronizeStream(stale) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "not a live stream"));
  aclrtStreamStatus status;
  REQUIRE(aclrtStreamQuery(stale, &status) == ACL_ERROR_RT_PARAM_INVALID);
  recent_error();
  REQUIRE(acl_test::launch_fill(x, 1.0, stale) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "not a live stream"));
  REQUIRE(aclrtMemsetAsync(buf.get(), 64, 0, 64, stale) == ACL_ERROR_RT_PARAM_INVALID);
  recent_error();
  REQUIRE(aclrtDestroyStream(stale) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "destroyed twice"));
  // The failed record did not leave the event pending.
  REQUIRE(aclrtSynchronizeEvent(ev.get()) == ACL_SUCCESS);
  aclrtEventRecordedStatus es;
  REQUIRE(aclrtQueryEventStatus(ev.get(), &es) == ACL_SUCCESS);
  REQUIRE(es == ACL_EVENT_RECORDED_STATUS_COMPLETE);
}

TEST_CASE("destroyed events are rejected by every event call", "[streams]") {
  acl_test::use_device0();
  StreamHandle s;
  EventHandle other;
  EventHandle doomed;
  const aclrtEvent stale = doomed.destroy();

  REQUIRE(aclrtStreamWaitEvent(s.get(), stale) == ACL_ERROR_RT_PARAM_INVALID);
  std::string msg = recent_error();
  REQUIRE(contains(msg, "aclrtStreamWaitEvent"));
  REQUIRE(contains(msg, "not a live event"));
  REQUIRE(aclrtRecordEvent(stale, s.get()) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "not a live event"));
  aclrtEventRecordedStatus status;
  REQUIRE(aclrtQueryEventStatus(stale, &status) == ACL_ERROR_RT_PARAM_INVALID);
  recent_error();
  REQUIRE(aclrtSynchronizeEvent(stale) == ACL_ERROR_RT_PARAM_INVALID);
  recent_error();
  float ms = 0;
  REQUIRE(aclrtEventElapsedTime(&ms, other.get(), stale) == ACL_ERROR_RT_PARAM_INVALID);
  recent_error();
  REQUIRE(aclrtDestroyEvent(stale) == ACL_ERROR_RT_PARAM_INVALID);
  REQUIRE(contains(recent_error(), "destroyed twice"));
  REQUIRE(aclrtSynchronizeStream(s.get()) == ACL_SUCCESS);  // nothing was queued
}

TEST_CASE("an event destroyed while a wait on it is queued still releases the waiter", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(20000);
  constexpr int64_t n = 16;
  DeviceBuffer xbuf(n * sizeof(float)), ybuf(n * sizeof(float));
  Tensor1D x(xbuf.get(), n), y(ybuf.get(), n);
  StreamHandle a, b;
  {
    EventHandle ev;
    REQUIRE(acl_test::launch_fill(x, 6.0, a.get()) == ACL_SUCCESS);
    REQUIRE(aclrtRecordEvent(ev.get(), a.get()) == ACL_SUCCESS);
    REQUIRE(aclrtStreamWaitEvent(b.get(), ev.get()) == ACL_SUCCESS);
  }  // destroyed with the record and the wait still pending, as CANN allows
  REQUIRE(acl_test::launch_adds(y, x, 1.0, b.get()) == ACL_SUCCESS);
  REQUIRE(read_floats(ybuf.get(), n, b.get()) == std::vector<float>(n, 7.0f));
}

TEST_CASE("a stream destroyed with work queued finishes that work first", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(20000);
  constexpr int64_t n = 16;
  DeviceBuffer buf(n * sizeof(float));
  Tensor1D x(buf.get(), n);
  EventHandle ev;
  {
    StreamHandle s;
    REQUIRE(acl_test::launch_fill(x, 8.0, s.get()) == ACL_SUCCESS);
    REQUIRE(aclrtRecordEvent(ev.get(), s.get()) == ACL_SUCCESS);
  }
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  REQUIRE(aclrtQueryEventStatus(ev.get(), &status) == ACL_SUCCESS);
  REQUIRE(status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
  std::vector<float> host(n);
  REQUIRE(aclrtMemcpy(host.data(), n * 4, buf.get(), n * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  REQUIRE(host == std::vector<float>(n, 8.0f));
}
