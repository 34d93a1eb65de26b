// Reflection and replication padding of the 1 to 3 trailing dims, as
// resampling maps (kernels/upsample/resample.h): every output position reads
// one input position, so forward is an exact copy and backward adds each
// gradient element to the position it was read from.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/upsample/resample.h"

namespace npu::kernels {

enum class PadMode {
  Reflect,    // mirrored about the edge element, which is not repeated
  Replicate,  // the edge element repeated
};

const char* pad_mode_name(PadMode mode);

// The taps of one dim of size `in` padded by `before` and `after` (negative
// values crop). Throws if the output would be empty, or a reflection pad is
// not below the dim's size.
DimTaps pad_taps(PadMode mode, int64_t in, int64_t before, int64_t after);

// `padding` as aten takes it: (begin, end) pairs, last dim first, for the
// trailing padding.size()/2 dims of `sizes`; returns the taps, outermost
// padded dim first.
ResampleTaps pad_taps(PadMode mode, const Shape& sizes, const std::vector<int64_t>& padding);

}  // namespace npu::kernels
