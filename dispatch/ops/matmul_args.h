// The matrix-product family's argument conversions, used by the `map:`
// expressions of ops/table/matmul.yaml.
#pragma once

#include <cstdint>

#include <ATen/ATen.h>

#include "dispatch/table/math_bits.h"

namespace npu::table {

// The cubeMathType torch_npu passes by default (torch.npu.matmul.allow_hf32
// off): KEEP_DTYPE. The emulator computes every mode as this one.
inline constexpr int8_t kCubeKeepDtype = 0;

}  // namespace npu::table
