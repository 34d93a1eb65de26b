// Limits of the emulated machine that both sides of the driver seam size
// their per-device tables by. One definition, so the emulator never reports
// more devices than dispatch has slots for.
#pragma once

#include <cstdint>

namespace npu::model {

// Devices per process: the most NPU_EMU_DEVICE_COUNT accepts (an Ascend
// server has 8 or 16 NPUs), and the size of dispatch's per-device stream,
// generator and allocator tables.
inline constexpr int32_t kMaxDevices = 16;

}  // namespace npu::model
