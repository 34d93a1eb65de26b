// The taps of PyTorch's interpolation modes along one dim (see resample.h
// for the engine that applies them): input size `in` resampled to `out`.
// `scale` is the scale factor the caller gave (output/input, as aten's
// scales_*), <= 0 when none was given; it then is in/out. Index and weight
// arithmetic follows PyTorch CPU's: float for nearest's index, the compute
// type (double for a Float64 `weight_dtype`, float otherwise) for the others.
// A Float16/BFloat16 `weight_dtype` rounds the linear and cubic weights to
// it, as CPU's forward kernels store them; backward passes Float32 (CPU's
// backward keeps them in float).
#pragma once

#include <cstdint>

#include "kernels/upsample/resample.h"

namespace npu::kernels {

enum class UpsampleMode {
  Nearest,       // src = min(floor(dst * in/out), in - 1), legacy (OpenCV) rounding
  NearestExact,  // src = min(floor((dst + 0.5) * in/out), in - 1)
  Linear,        // 2 taps; align_corners maps the corner pixels' centres onto each other
  Cubic,         // 4 taps (Keys, A = -0.75), indices clamped to the border
  LinearAA,      // antialiased: a triangle filter widened by the downscale factor
  CubicAA,       // antialiased Keys filter (A = -0.5)
};

const char* upsample_mode_name(UpsampleMode mode);

DimTaps upsample_taps(UpsampleMode mode, int64_t in, int64_t out, bool align_corners, double scale,
                      DType weight_dtype);

}  // namespace npu::kernels
