// Devices as PyTorch sees them: count, the current device, initialization.
#pragma once

#include <c10/core/Device.h>

namespace npu {

// Visible device count; 0 when the driver is not loaded or reports failure.
c10::DeviceIndex device_count() noexcept;

// Throws naming the index and the count when `index` is not a visible device.
void check_device_index(c10::DeviceIndex index);

c10::DeviceIndex current_device();
void set_device(c10::DeviceIndex index);

// Blocks until all work queued on `index` has run; throws its pending errors.
void synchronize_device(c10::DeviceIndex index);

}  // namespace npu
