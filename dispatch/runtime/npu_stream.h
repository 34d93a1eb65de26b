// Streams as PyTorch sees them. A c10::Stream id names an ACL stream: id 0 is
// the device's default stream, small ids index a per-device pool, and ids
// above kExternalStreamBase are ACL handles passed in by the user
// (ExternalStream).
#pragma once

#include <c10/core/Stream.h>

#include "acl/acl_base.h"

namespace npu {

inline constexpr c10::StreamId kExternalStreamBase = 1 << 20;

c10::Stream default_stream(c10::DeviceIndex device);
c10::Stream current_stream(c10::DeviceIndex device);
// Makes `stream` current on its device for this thread; returns the previous one.
c10::Stream exchange_stream(c10::Stream stream);
// A stream from the device's pool (round robin, created lazily).
c10::Stream pool_stream(c10::DeviceIndex device, int priority);
c10::Stream external_stream(c10::DeviceIndex device, aclrtStream handle);

// The ACL handle behind a stream.
aclrtStream acl_stream(c10::Stream stream);
// The current stream's handle on the current device: where ops launch.
aclrtStream current_acl_stream();
// The same on `device` (a valid index), for callers that know it already:
// current_device() is a thread-local lookup.
aclrtStream current_acl_stream(c10::DeviceIndex device);
// The current device and its current stream's handle, read together.
struct DeviceAndStream {
  c10::DeviceIndex device;
  aclrtStream stream;
};
DeviceAndStream current_device_and_stream();

bool query_stream(c10::Stream stream);
void synchronize_stream(c10::Stream stream);

}  // namespace npu
