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

}  // namespace npu::kernels
