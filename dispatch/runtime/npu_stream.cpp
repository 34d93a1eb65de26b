#include "dispatch/runtime/npu_stream.h"

#include <array>
#include <mutex>
#include <vector>

#include <c10/util/Exception.h>

#include "acl/acl_rt.h"
#include "device_model/limits.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/thread_state.h"

namespace npu {

namespace {

constexpr int kPoolSize = 8;
using model::kMaxDevices;

// Per device: the default stream and the pool, created on first use. The
// registry of ACL handles the process owns; they live until exit.
struct DeviceStreams {
  std::once_flag init;
  aclrtStream default_handle = nullptr;
  std::mutex pool_mutex;
  std::vector<aclrtStream> pool;
  int next = 0;
};

// Never destroyed: tensors freed during static destruction at exit may
// still ask for a device's streams.
std::array<DeviceStreams, kMaxDevices>& streams() {
  static auto& s = *new std::array<DeviceStreams, kMaxDevices>();
  return s;
}

aclrtStream create_stream(c10::DeviceIndex device, int priority) {
  const auto prev = current_device();
  set_device(device);
  aclrtStream handle = nullptr;
  NPU_CHECK(aclrtCreateStreamWithConfig, &handle, static_cast<uint32_t>(std::max(priority, 0)), 0u);
  set_device(prev);
  return handle;
}

DeviceStreams& device_streams(c10::DeviceIndex device) {
  check_device_index(device);
  DeviceStreams& ds = streams()[device];
  std::call_once(ds.init, [&] { ds.default_handle = create_stream(device, 0); });
  return ds;
}

c10::Stream make_stream(c10::DeviceIndex device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device), id);
}

}  // namespace

c10::Stream default_stream(c10::DeviceIndex device) {
  device_streams(device);
  return make_stream(device, 0);
}

c10::Stream current_stream(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  device_streams(device);
  return make_stream(device, thread_state().current_stream[device]);
}

c10::Stream exchange_stream(c10::Stream stream) {
  const auto device = stream.device_index();
  const c10::Stream prev = current_stream(device);
  thread_state().current_stream[device] = stream.id();
  return prev;
}

c10::Stream pool_stream(c10::DeviceIndex device, int priority) {
  if (device < 0) device = current_device();
  DeviceStreams& ds = device_streams(device);
  std::lock_guard<std::mutex> lock(ds.pool_mutex);
  const int slot = ds.next++ % kPoolSize;
  if (static_cast<int>(ds.pool.size()) <= slot) ds.pool.push_back(create_stream(device, priority));
  return make_stream(device, slot + 1);
}

c10::Stream external_stream(c10::DeviceIndex device, aclrtStream handle) {
  const auto id = static_cast<c10::StreamId>(reinterpret_cast<intptr_t>(handle));
  TORCH_CHECK(id > kExternalStreamBase, "ExternalStream: ", handle, " is not a valid ACL stream handle");
  device_streams(device);
  // Asked now, so that a bogus handle fails here and not at the first launch
  // on it (the runtime knows its live streams; the handle is not dereferenced).
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  const aclError err = NPU_ACL(aclrtStreamQuery)(handle, &status);
  if (err != ACL_SUCCESS) NPU_ACL(aclGetRecentErrMsg)();  // consumed: reported here, not by a later call
  TORCH_CHECK(err == ACL_SUCCESS, "ExternalStream: ", handle,
              " is not a live ACL stream of this process (aclrtStreamQuery returned error ", err,
              "); pass a handle from aclrtCreateStream or torch.npu.Stream().npu_stream");
  return make_stream(device, id);
}

aclrtStream acl_stream(c10::Stream stream) {
  DeviceStreams& ds = device_streams(stream.device_index());
  const c10::StreamId id = stream.id();
  if (id == 0) return ds.default_handle;
  if (id > kExternalStreamBase) return reinterpret_cast<aclrtStream>(static_cast<intptr_t>(id));
  std::lock_guard<std::mutex> lock(ds.pool_mutex);
  TORCH_CHECK(id >= 1 && id <= static_cast<c10::StreamId>(ds.pool.size()), "unknown npu stream id ", id);
  return ds.pool[id - 1];
}

namespace {

// The current stream's handle of `mine` on `device`. Every launch asks: the
// default stream's handle, once this thread saw it created, is read from the
// thread's copy (no call_once, no index check).
aclrtStream current_acl_stream(ThreadState& mine, c10::DeviceIndex device) {
  if (mine.current_stream[device] == 0) {
    aclrtStream& handle = mine.default_stream[device];
    if (handle == nullptr) handle = device_streams(device).default_handle;
    return handle;
  }
  return acl_stream(current_stream(device));
}

}  // namespace

aclrtStream current_acl_stream() {
  ThreadState& mine = thread_state();
  return current_acl_stream(mine, current_device(mine));
}

aclrtStream current_acl_stream(c10::DeviceIndex device) { return current_acl_stream(thread_state(), device); }

DeviceAndStream current_device_and_stream() {
  ThreadState& mine = thread_state();
  const c10::DeviceIndex device = current_device(mine);
  return {device, current_acl_stream(mine, device)};
}

bool query_stream(c10::Stream stream) {
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  NPU_CHECK(aclrtStreamQuery, acl_stream(stream), &status);
  return status == ACL_STREAM_STATUS_COMPLETE;
}

void synchronize_stream(c10::Stream stream) { NPU_CHECK(aclrtSynchronizeStream, acl_stream(stream)); }

}  // namespace npu
