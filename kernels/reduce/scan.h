// Inclusive scans along one dim. `out` has in's shape and any strides; its
// dtype is the compute dtype (PyTorch's dtype=): floats accumulate in double,
// integers in 64 bits, rounding into out at every position, like PyTorch's
// CPU kernels. Long single lines are scanned in parallel chunks (partial
// totals, then an offset pass), so they scale too.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

void cumsum(const TensorView& out, const TensorView& in, int64_t dim);
void cumprod(const TensorView& out, const TensorView& in, int64_t dim);
// log(cumsum(exp(in))) without overflow (each step is logaddexp); floating
// dtypes only, out's dtype is in's.
void logcumsumexp(const TensorView& out, const TensorView& in, int64_t dim);
// Running max (is_max) or min along dim and the index (int64) where it was
// taken: ties take the later index, and a NaN, once met, is the running
// value with its own index (PyTorch's cummax/cummin). values has in's
// dtype, indices int64, both in's shape. Not complex.
void cum_extreme(bool is_max, const TensorView& values, const TensorView& indices, const TensorView& in, int64_t dim);

}  // namespace npu::kernels
