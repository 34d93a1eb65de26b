// Kernels that create values from nothing but parameters: ranges and the
// identity matrix, with PyTorch CPU's arithmetic (so the same elements come
// out, bit for bit, including the rounding of half-precision ranges).
#pragma once

#include <cstdint>

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The number of elements torch.arange(start, end, step) has for an output of
// `dtype`; throws KernelError when step is 0, the bounds are not finite, or
// step's sign points away from end.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype);

// out[i] = start + i * step (in double for float32/float64 outputs, float for
// half/bfloat16, int64 for integers, then converted). out is 1-D; any dtype
// but bool and complex.
void arange(const TensorView& out, const Scalar& start, const Scalar& step);

// torch.linspace(start, end, steps = out.numel()): the first half counts up
// from start, the second half down from end, so both ends are exact. out is
// 1-D; any dtype but bool and complex.
void linspace(const TensorView& out, const Scalar& start, const Scalar& end);

// out = the 2-D identity (ones on the main diagonal). Any dtype.
void eye(const TensorView& out);

}  // namespace npu::kernels
