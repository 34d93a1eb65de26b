// addr (out = beta * self + alpha * vec1 ⊗ vec2) for the dtypes where PyTorch's
// CPU does not compute it as a product in a wider type, elementwise as CPU does:
// - float16 and bfloat16: CPU's Half/BFloat16 arithmetic rounds to the dtype
//   after every operation (beta and alpha first, then alpha * vec1, that times
//   vec2, beta * self and the sum), where the GEMM engine accumulates in
//   float32 and rounds once. An outer product has no sum to accumulate, so the
//   engine's extra precision only made results differ from CPU's by a few units
//   in the last place on cancelling samples; this matches CPU bit for bit.
// - bool: (beta && self) || (alpha && vec1 && vec2).
#pragma once

#include <complex>

#include "kernels/core/tensor_view.h"

namespace npu::kernels::linalg {

// Whether addr_pointwise computes `dtype` (the GEMM engine computes the others).
bool addr_is_pointwise(DType dtype);

// `out` is m x n; `self` broadcasts to it (ignored when beta is 0 in the
// dtype, so its NaNs do not propagate); vec1 has m elements, vec2 n. Throws
// KernelError unless all four have one dtype with addr_is_pointwise.
void addr_pointwise(const TensorView& out, const TensorView& self, const TensorView& vec1, const TensorView& vec2,
                    std::complex<double> beta, std::complex<double> alpha);

}  // namespace npu::kernels::linalg
