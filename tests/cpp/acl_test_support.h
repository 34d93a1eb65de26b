// RAII owners and small launch helpers for tests that drive the emulator
// through the ACL C API, so each test reads as the calls it is about and
// never leaks a handle when a REQUIRE fails half way.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_emu_ext.h"
#include "acl/acl_rt.h"
#include "acl/aclnn_binary.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_copy.h"

namespace acl_test {

// Owners of the aclnn argument objects tests create: each is destroyed with
// its aclDestroy* call, also when a REQUIRE fails half way.
struct AclDeleter {
  void operator()(aclTensor* t) const { aclDestroyTensor(t); }
  void operator()(aclIntArray* a) const { aclDestroyIntArray(a); }
  void operator()(aclTensorList* l) const { aclDestroyTensorList(l); }
  void operator()(aclScalarList* l) const { aclDestroyScalarList(l); }
};
using TensorPtr = std::unique_ptr<aclTensor, AclDeleter>;
using IntArrayPtr = std::unique_ptr<aclIntArray, AclDeleter>;
using TensorListPtr = std::unique_ptr<aclTensorList, AclDeleter>;
using ScalarListPtr = std::unique_ptr<aclScalarList, AclDeleter>;

// A contiguous ND description of `data` with the shape `dims`.
inline TensorPtr make_tensor(void* data, std::vector<int64_t> dims, aclDataType dtype = ACL_FLOAT) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  return TensorPtr(aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, dims.data(),
                                   dims.size(), data));
}

inline IntArrayPtr int_array(std::vector<int64_t> v) { return IntArrayPtr(aclCreateIntArray(v.data(), v.size())); }

// aclGetRecentErrMsg consumes the message; "" when there is none.
inline std::string recent_error() {
  const char* msg = aclGetRecentErrMsg();
  return msg == nullptr ? std::string() : std::string(msg);
}

// Runs a ...GetWorkspaceSize call (given the workspace and executor
// out-parameters) expected to refuse its arguments: it fails, hands out no
// executor, and the recent error message contains `message_part`.
using Prepare = std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>;
inline void require_refused(const Prepare& prepare, const std::string& message_part) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  CHECK(prepare(&ws, &ex) != ACL_SUCCESS);
  CHECK(ex == nullptr);
  CHECK(recent_error().find(message_part) != std::string::npos);
}

// aclrtSetDevice is per thread; every test selects device 0 explicitly.
inline void use_device0() { REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS); }

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    REQUIRE(aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) aclrtFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  // Gives up ownership, for tests that free by hand.
  void* release() {
    void* p = ptr_;
    ptr_ = nullptr;
    return p;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

class StreamHandle {
 public:
  StreamHandle() { REQUIRE(aclrtCreateStream(&stream_) == ACL_SUCCESS); }
  ~StreamHandle() {
    if (stream_ != nullptr) aclrtDestroyStream(stream_);
  }
  StreamHandle(const StreamHandle&) = delete;
  StreamHandle& operator=(const StreamHandle&) = delete;

  aclrtStream get() const { return stream_; }
  // Destroys the stream now, keeping the stale handle for misuse tests.
  aclrtStream destroy() {
    REQUIRE(aclrtDestroyStream(stream_) == ACL_SUCCESS);
    aclrtStream stale = stream_;
    stream_ = nullptr;
    return stale;
  }

 private:
  aclrtStream stream_ = nullptr;
};

class EventHandle {
 public:
  explicit EventHandle(uint32_t flags = ACL_EVENT_TIME_LINE) {
    REQUIRE(aclrtCreateEventWithFlag(&event_, flags) == ACL_SUCCESS);
  }
  ~EventHandle() {
    if (event_ != nullptr) aclrtDestroyEvent(event_);
  }
  EventHandle(const EventHandle&) = delete;
  EventHandle& operator=(const EventHandle&) = delete;

  aclrtEvent get() const { return event_; }
  aclrtEvent destroy() {
    REQUIRE(aclrtDestroyEvent(event_) == ACL_SUCCESS);
    aclrtEvent stale = event_;
    event_ = nullptr;
    return stale;
  }

 private:
  aclrtEvent event_ = nullptr;
};

// Sets the emulated kernel latency for one scope. The knob is process-wide,
// so leaving it set would slow down every later test.
class KernelDelay {
 public:
  explicit KernelDelay(uint64_t us) : previous_(aclemuGetKernelDelayUs()) {
    REQUIRE(aclemuSetKernelDelayUs(us) == ACL_SUCCESS);
  }
  ~KernelDelay() { aclemuSetKernelDelayUs(previous_); }
  KernelDelay(const KernelDelay&) = delete;
  KernelDelay& operator=(const KernelDelay&) = delete;

 private:
  uint64_t previous_;
};

// Tensor1D and ScalarHandle do not assert (Catch2 assertions are not thread
// safe and worker threads use them): a failed creation leaves a null handle,
// which the aclnn call it is passed to rejects with ACLNN_ERR_PARAM_NULLPTR.

// A contiguous 1-D tensor description over device memory.
class Tensor1D {
 public:
  Tensor1D(void* data, int64_t n, aclDataType dtype = ACL_FLOAT) {
    tensor_ = aclCreateTensor(&n, 1, dtype, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
  }
  ~Tensor1D() { aclDestroyTensor(tensor_); }
  Tensor1D(const Tensor1D&) = delete;
  Tensor1D& operator=(const Tensor1D&) = delete;

  aclTensor* get() const { return tensor_; }

 private:
  aclTensor* tensor_ = nullptr;
};

class ScalarHandle {
 public:
  explicit ScalarHandle(double value) : value_(value) {
    scalar_ = aclCreateScalar(&value_, ACL_DOUBLE);
  }
  ~ScalarHandle() { aclDestroyScalar(scalar_); }
  ScalarHandle(const ScalarHandle&) = delete;
  ScalarHandle& operator=(const ScalarHandle&) = delete;

  aclScalar* get() const { return scalar_; }

 private:
  double value_;
  aclScalar* scalar_ = nullptr;
};

// These helpers return the status instead of REQUIRE-ing it so they can be
// used from worker threads, where Catch2 assertions are not allowed.

// self[...] = value, on `stream`.
inline aclnnStatus launch_fill(const Tensor1D& self, double value, aclrtStream stream) {
  ScalarHandle v(value);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnStatus st = aclnnInplaceFillScalarGetWorkspaceSize(self.get(), v.get(), &ws, &ex)) return st;
  return aclnnInplaceFillScalar(nullptr, ws, ex, stream);
}

// out = self + value, on `stream`.
inline aclnnStatus launch_adds(const Tensor1D& out, const Tensor1D& self, double value, aclrtStream stream) {
  ScalarHandle v(value), one(1.0);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnStatus st = aclnnAddsGetWorkspaceSize(self.get(), v.get(), one.get(), out.get(), &ws, &ex)) return st;
  return aclnnAdds(nullptr, ws, ex, stream);
}

// out = self * value, on `stream`.
inline aclnnStatus launch_muls(const Tensor1D& out, const Tensor1D& self, double value, aclrtStream stream) {
  ScalarHandle v(value);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnStatus st = aclnnMulsGetWorkspaceSize(self.get(), v.get(), out.get(), &ws, &ex)) return st;
  return aclnnMuls(nullptr, ws, ex, stream);
}

// Reads n floats back with an async copy on `stream` and synchronizes only
// that stream, so the result depends on that stream's ordering alone.
inline std::vector<float> read_floats(const void* device, std::size_t n, aclrtStream stream) {
  std::vector<float> host(n, -1.0f);
  REQUIRE(aclrtMemcpyAsync(host.data(), n * sizeof(float), device, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST,
                           stream) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  return host;
}

}  // namespace acl_test
