// addr (out = beta * self + alpha * vec1 ⊗ vec2) for float16 and bfloat16 as
// PyTorch's CPU computes it: its Half/BFloat16 arithmetic rounds to the dtype
// after every operation (beta and alpha first, then alpha * vec1, that times
// vec2, beta * self and the sum), where the GEMM engine accumulates in float32
// and rounds once. An outer product has no sum to accumulate, so the engine's
// extra precision only made results differ from CPU's by a few units in the
// last place on cancelling samples; this kernel matches CPU bit for bit.
#pragma once

#include <complex>

#include "kernels/core/tensor_view.h"

namespace npu::kernels::linalg {

// `out` is m x n; `self` broadcasts to it (ignored when beta rounds to 0, so
// its NaNs do not propagate); vec1 has m elements, vec2 n. Throws KernelError
// unless all four are float16 or all bfloat16.
void addr_stepwise(const TensorView& out, const TensorView& self, const TensorView& vec1, const TensorView& vec2,
                   std::complex<double> beta, std::complex<double> alpha);

}  // namespace npu::kernels::linalg
