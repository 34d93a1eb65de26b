// The ACL stream and event API.
#include <chrono>
#include <string>

#include "acl/acl_rt.h"
#include "emulator/acl_error.h"
#include "emulator/device.h"

using npu::emu::fail;
using npu::emu::guarded;
using npu::emu::Runtime;

namespace {

void require_out(const void* p, const char* name) {
  if (p == nullptr) fail(ACL_ERROR_INVALID_PARAM, std::string(name) + " is null");
}

aclError create_event(const char* api, aclrtEvent* event, uint32_t flags, bool timing) {
  return guarded(api, [&] {
    require_out(event, "event");
    *event = Runtime::get().create_event(flags, timing);
  });
}

}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  return guarded("aclrtCreateStream", [&] {
    require_out(stream, "stream");
    *stream = Runtime::get().create_stream(0);
  });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t) {
  return guarded("aclrtCreateStreamWithConfig", [&] {
    require_out(stream, "stream");
    *stream = Runtime::get().create_stream(priority);
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return guarded("aclrtDestroyStream", [&] {
    if (stream == nullptr) fail(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed");
    Runtime::get().destroy_stream(stream);
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return guarded("aclrtSynchronizeStream", [&] { Runtime::get().stream(stream).synchronize(); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return guarded("aclrtStreamQuery", [&] {
    require_out(status, "status");
    *status = Runtime::get().stream(stream).idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return guarded("aclrtStreamWaitEvent", [&] {
    Runtime& rt = Runtime::get();
    auto ev = rt.event(event);
    const uint64_t generation = ev->latest_generation();
    if (generation == 0) return;  // never recorded: nothing to wait for
    rt.stream(stream).submit({"aclrtStreamWaitEvent", [ev, generation] { ev->wait_for(generation); }, false, true});
  });
}

aclError aclrtCreateEvent(aclrtEvent* event) { return create_event("aclrtCreateEvent", event, 0, true); }

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return create_event("aclrtCreateEventWithFlag", event, flag, (flag & ACL_EVENT_TIME_LINE) != 0);
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return guarded("aclrtRecordEvent", [&] {
    Runtime& rt = Runtime::get();
    auto ev = rt.event(event);
    auto& s = rt.stream(stream);
    const uint64_t generation = ev->begin_record(s.device());
    s.submit({"aclrtRecordEvent", [ev, generation] { ev->complete(generation); }, false});
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return guarded("aclrtQueryEventStatus", [&] {
    require_out(status, "status");
    *status = Runtime::get().event(event)->query() ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                   : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return guarded("aclrtSynchronizeEvent", [&] { Runtime::get().event(event)->synchronize(); });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  return guarded("aclrtEventElapsedTime", [&] {
    require_out(ms, "ms");
    Runtime& rt = Runtime::get();
    auto start = rt.event(startEvent);
    auto end = rt.event(endEvent);
    if (!start->timing() || !end->timing()) {
      fail(ACL_ERROR_INVALID_PARAM, "both events must be created with timing enabled (ACL_EVENT_TIME_LINE)");
    }
    const auto t0 = start->completion_time();
    const auto t1 = end->completion_time();
    if (!t0 || !t1) fail(ACL_ERROR_RT_EVENT_NOT_RECORD, "both events must be recorded and completed");
    if (start->device() != end->device()) {
      // CANN and CUDA refuse too: the two devices' clocks are not one timeline.
      fail(ACL_ERROR_RT_PARAM_INVALID, "elapsed time between events recorded on different devices (npu:" +
                                           std::to_string(start->device()) + " and npu:" +
                                           std::to_string(end->device()) + "); record both on one device");
    }
    *ms = std::chrono::duration<float, std::milli>(*t1 - *t0).count();
  });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return guarded("aclrtDestroyEvent", [&] { Runtime::get().destroy_event(event); });
}

}  // extern "C"
