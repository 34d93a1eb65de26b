// Shared by the GEMM engine's tests (test_gemm*.cpp): the arguments of a
// plain product, so each test sets only what it is about (alpha, beta,
// reduce_batch, conjugation) on top.
#pragma once

#include <cstdint>

#include "kernels/linalg/gemm.h"

namespace gemm_test {

// C = A @ B for `batch` products of m x k by k x n over the given strided
// matrices; every other field keeps GemmArgs' default (alpha 1, beta 0).
inline npu::kernels::linalg::GemmArgs product(npu::model::DType dtype, int64_t m, int64_t n, int64_t k,
                                              const npu::kernels::linalg::GemmMatrix& a,
                                              const npu::kernels::linalg::GemmMatrix& b,
                                              const npu::kernels::linalg::GemmMatrix& c, int64_t batch = 1) {
  npu::kernels::linalg::GemmArgs g;
  g.dtype = dtype;
  g.batch = batch;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.b = b;
  g.c = c;
  return g;
}

}  // namespace gemm_test
