// ACL runtime functions torch_npu binds that the emulator does not export,
// built on the emulator's own: contexts, extended events and streams,
// synchronization with a timeout. Everything keeps the emulator's semantics
// (ordering, completion); nothing here queues work of its own.
#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "emulator_link.h"
#include "recent_error.h"
#include "standin_types.h"

namespace {

// The emulator has one implicit context per device; a context handle is the
// address of that device's slot, so it is stable and tells the device back.
constexpr int kMaxDevices = 64;
char context_slots[kMaxDevices];

// Stream ids for aclrtStreamGetId: assigned on first query, stable for the
// stream's life (the default stream, nullptr, is 0).
class StreamIds {
 public:
  int32_t id_of(aclrtStream stream) {
    if (stream == nullptr) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, inserted] = ids_.try_emplace(stream, next_);
    if (inserted) ++next_;
    return it->second;
  }
  void forget(aclrtStream stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    ids_.erase(stream);
  }

 private:
  std::mutex mutex_;
  std::map<aclrtStream, int32_t> ids_;
  int32_t next_ = 1;
};

StreamIds& stream_ids() {
  static auto* const ids = new StreamIds;  // used by streams destroyed at exit
  return *ids;
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (context == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
  int32_t device = 0;
  const aclError ret = aclrtGetDevice(&device);
  if (ret != ACL_SUCCESS) return ret;
  if (device < 0 || device >= kMaxDevices) return npu::standin::fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetCurrentContext: device id out of range");
  *context = &context_slots[device];
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context) {
  const auto* slot = static_cast<const char*>(context);
  if (slot < context_slots || slot >= context_slots + kMaxDevices) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM,
                              "aclrtSetCurrentContext: not a context of npu-emu's emulated CANN (use aclrtGetCurrentContext)");
  }
  return aclrtSetDevice(static_cast<int32_t>(slot - context_slots));
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  const aclError ret = aclrtSetDevice(deviceId);
  if (ret != ACL_SUCCESS) return ret;
  return aclrtGetCurrentContext(context);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }

ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t* flags, int32_t* active) {
  if (flags != nullptr) *flags = 0;
  if (active != nullptr) *active = 1;
  return ACL_SUCCESS;
}

// Extended events: the emulator's events serve every flag torch_npu passes
// (timing is ACL_EVENT_TIME_LINE; the IPC and external flags are refused by
// the functions that would need them).
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return aclrtCreateEventWithFlag(event, flag);
}

// Re-recording an emulator event replaces its previous record, so a reset
// needs no work of its own.
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent, aclrtStream) { return ACL_SUCCESS; }

ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  if (status == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is null");
  aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  const aclError ret = aclrtQueryEventStatus(event, &recorded);
  if (ret != ACL_SUCCESS) return ret;
  *status = recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclQueryEventRecordedStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return aclrtQueryEventStatus(event, status);
}

// The emulator's streams always finish (kernels run on host threads), so a
// timeout can only matter for a hung host: the plain synchronization serves.
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t) { return aclrtSynchronizeDevice(); }

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t) {
  return aclrtSynchronizeStream(stream);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream) {
  stream_ids().forget(stream);
  return aclrtDestroyStream(stream);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId) {
  if (streamId == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetId: streamId is null");
  *streamId = stream_ids().id_of(stream);
  return ACL_SUCCESS;
}

// The emulator's allocations are aligned far beyond 32 bytes.
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return aclrtMalloc(devPtr, size, policy);
}

// Errors are reported per call (the return code and aclGetRecentErrMsg);
// there is no sticky device error to fetch or clear.
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel) { return ACL_SUCCESS; }

// No host callbacks are ever launched (aclrtLaunchCallback is refused), so
// there is never a report to process: wait as CANN does (timeout in ms, -1
// for ever, capped so a polling thread still wakes), then time out.
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout) {
  const int32_t wait_ms = timeout < 0 ? 1000 : std::min(timeout, 1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  return ACL_ERROR_RT_REPORT_TIMEOUT;
}

ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t* const logicDevId) {
  if (logicDevId == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetLogicDevIdByUserDevId: logicDevId is null");
  *logicDevId = userDevid;
  return ACL_SUCCESS;
}

}  // extern "C"
