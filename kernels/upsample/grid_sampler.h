// Grid sampling (F.grid_sample): out[n, c, *p] = input[n, c] read at the
// normalized location grid[n, *p] ([-1, 1] spans the input), by bilinear,
// nearest or (2-d only) bicubic interpolation, locations outside handled by
// the padding mode. PyTorch CPU's coordinate arithmetic (unnormalize, clip,
// reflect). Reduced floats would compute in float, but CPU rounds each step
// to the dtype, so the table offers float32/float64 only.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

enum class GridInterpolation : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

// input (N, C, [D,] H, W), grid (N, [Do,] Ho, Wo, rank) of input's dtype,
// out (N, C, [Do,] Ho, Wo); rank 2 or 3 (input's spatial dims).
void grid_sample(const TensorView& input, const TensorView& grid, const TensorView& out, GridInterpolation mode,
                 GridPadding padding, bool align_corners);

}  // namespace npu::kernels
