// CANN's mask form of 2-d max pooling's indices (aclnnMaxPool2dWithMask and
// its backward): an int8 tensor [*lead, kH * kW, (ceil(Ho * Wo / 16) + 1) * 32]
// for an output [*lead, Ho, Wo]. npu-emu fills it as a mask: byte p of row k
// is 1 when window element k (k = m * kW + n, kernel row m, column n) holds
// the maximum of output p (p = oh * Wo + ow), every other byte 0, so exactly
// one row marks each output. The real chip's bit packing is its own; torch_npu
// only allocates the tensor and hands it from the forward to the backward.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"
#include "kernels/pool/pool.h"

namespace npu::kernels {

// The mask's shape for a pooled output shape [*lead, Ho, Wo].
Shape max_pool_mask_shape(const Shape& pooled, const PoolParams& p);

// indices: [*lead, Ho, Wo] int64, flat positions within each input plane of
// width `input_width` (what max_pool gives); mask as above.
void max_pool_indices_to_mask(const TensorView& indices, const TensorView& mask, const PoolParams& p,
                              int64_t input_width);
// The inverse: the flat input positions the mask marks. Throws KernelError if
// an output has no marked window element.
void max_pool_mask_to_indices(const TensorView& mask, const TensorView& indices, const PoolParams& p,
                              int64_t input_width);

}  // namespace npu::kernels
