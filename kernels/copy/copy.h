// Data movement kernels: strided copy with dtype conversion, and fill.
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// dst[i] = convert(src[i]); src is broadcast to dst's shape. Any strides.
void copy(const TensorView& dst, const TensorView& src);

// dst[i] = value converted to dst's dtype.
void fill(const TensorView& dst, const Scalar& value);

}  // namespace npu::kernels
