// The one GEMM the convolution kernels call, on row-major buffers: the
// linalg GEMM engine (kernels/linalg/gemm.h) with transposes as strides.
#pragma once

#include <cstdint>

namespace npu::kernels::conv {

// C (m x n, row stride ldc) = [C +] op(A) * op(B), all row-major; op(X) is X
// or its transpose. A is m x k (k x m when trans_a), B is k x n (n x k when
// trans_b). Acc is float, double or int64_t.
template <class Acc>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b,
          int64_t ldb, Acc* c, int64_t ldc, bool accumulate);

}  // namespace npu::kernels::conv
