// out[i] = fma(alpha, y[i], x[i]) over contiguous runs, in float and rounded
// once to T: the rounding of PyTorch's vectorized CPU add/sub with alpha.
#pragma once

#include <cstdint>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

// Defined for T = float, bfloat16, half. out may alias x or y element for
// element (in-place add_).
template <class T>
void fused_axpy(T* out, const T* x, const T* y, float alpha, int64_t n);

}  // namespace npu::kernels
