// What the npu runtime keeps per host thread: the current device and, per
// device, the current stream and the default stream's handle. One
// thread-local: each thread-local of a shared library costs a
// __tls_get_addr call per access, and every launch reads all of these.
#pragma once

#include <array>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "acl/acl_base.h"
#include "device_model/limits.h"

namespace npu {

struct ThreadState {
  c10::DeviceIndex device = -1;  // the ACL current device; -1 until first use (then device 0)
  std::array<c10::StreamId, model::kMaxDevices> current_stream{};  // 0: the default stream
  // The default streams' handles, once this thread saw them created.
  std::array<aclrtStream, model::kMaxDevices> default_stream{};
};

// This thread's state.
ThreadState& thread_state();

}  // namespace npu
