// CANN's two-launch dropout, for the real torch_npu on the CANN stand-in: a
// bit-packed keep mask (DropoutGenMask) and its application (DropoutDoMask),
// also the dropout gradient (the same mask applied to the output gradient).
//
// The mask holds one bit per element of the masked tensor, in row-major order
// of its logical shape: element i is bit i % 8 (least significant first) of
// byte i / 8, 1 = kept; bits past the last element are 0. Its length is the
// element count rounded up to 128, in bytes: align(numel, 128) / 8.
//
// Randomness: torch_npu advances its generator's offset by a fixed 10 words
// per mask, whatever its size, so masks must not be drawn from counter blocks
// offset / 4 + i (consecutive masks would overlap, shifted by a few
// elements). Instead the offset selects the upper half of the 128-bit Philox
// counter: element i reads word i % 4 of the block with counter
// (i / 4, offset) under key seed and is kept when its 24-bit uniform float is
// >= p. Distinct offsets give independent masks of any size.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"
#include "kernels/random/random_ops.h"

namespace npu::kernels {

// Bytes of the mask of `numel` elements: align(numel, 128) / 8.
inline int64_t dropout_mask_bytes(int64_t numel) { return (numel + 127) / 128 * 128 / 8; }

// mask (uint8, contiguous, dropout_mask_bytes(numel) bytes) for `numel`
// elements dropped with probability p in [0, 1].
void dropout_gen_mask(const TensorView& mask, int64_t numel, double p, PhiloxInputs rng);

// out = self / (1 - p) where the mask bit of the element is 1, else 0;
// p == 0 copies self, p == 1 zeroes out. out and self share a floating dtype
// and shape (any strides); float16/bfloat16 scale in float32.
void dropout_do_mask(const TensorView& out, const TensorView& self, const TensorView& mask, double p);

}  // namespace npu::kernels
