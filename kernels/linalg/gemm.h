// The GEMM engine every matrix product of the emulator runs on (mm, bmm,
// addmm, baddbmm, addbmm, mv, dot, addr, and convolution lowered to GEMM):
//
//   C[b] = beta * C[b] + alpha * op(A[b]) · op(B[b])       for b in [0, batch)
//   C    = beta * C    + alpha * sum_b op(A[b]) · op(B[b])  with reduce_batch
//
// Operands are strided matrices in device memory: any row/column strides
// (transposed operands are just swapped strides, no copies), any batch
// stride (0 broadcasts one matrix over the batch). op() is the identity or
// the complex conjugate (conj_a / conj_b; transposes are strides).
//
// A, B and C share one dtype. The engine dispatches on it once, then runs
// templates on Eigen's GEMM over Eigen::Map of the operands, split across
// oneTBB's workers by batch and row/column blocks (Eigen itself is built
// without OpenMP and runs single-threaded). float16/bfloat16 operands are
// converted to float32 panel by panel, accumulated in float32 and rounded
// once into C, as PyTorch's CPU does (with reduce_batch, once per batch
// item, as CPU's addbmm does). On CPUs with AVX512-BF16 (and a build
// targeting it), bfloat16 products of at least 8 x 16 instead run on the
// bf16 dot-product instruction (gemm_bf16_dot.h: exact bf16 products summed
// in float32, as oneDNN does for PyTorch CPU there), same single rounding.
// beta == 0 ignores C's old values (NaN in C does not propagate), as BLAS
// and PyTorch do.
//
// This header includes no Eigen: its users (emulator entries, convolution)
// do not need the ISA flags the implementation is compiled with.
#pragma once

#include <complex>
#include <cstdint>

#include "device_model/dtype.h"

namespace npu::kernels::linalg {

// One strided operand: element (b, i, j) is at
// data + b * batch_stride + i * row_stride + j * col_stride (in elements).
// Blocked layouts (FRACTAL_NZ, whose columns come in panels of C0): with
// col_block > 0, column j is at (j / col_block) * col_block_stride +
// (j % col_block) * col_stride instead; rows likewise with row_block (a
// transposed NZ operand). The engine packs blocked operands itself.
struct GemmMatrix {
  void* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
  int64_t batch_stride = 0;
  int64_t row_block = 0;
  int64_t row_block_stride = 0;
  int64_t col_block = 0;
  int64_t col_block_stride = 0;
};

struct GemmArgs {
  model::DType dtype = model::DType::Float32;  // of A, B and C
  int64_t batch = 1;
  int64_t m = 0;  // rows of op(A) and C
  int64_t n = 0;  // columns of op(B) and C
  int64_t k = 0;  // columns of op(A), rows of op(B)
  GemmMatrix a;   // m x k
  GemmMatrix b;   // k x n
  GemmMatrix c;   // m x n; c.batch_stride is ignored with reduce_batch
  // Scalars in the widest form; converted to the compute type (float for
  // float16/bfloat16, the real part for real dtypes, truncated for integers).
  std::complex<double> alpha{1.0, 0.0};
  std::complex<double> beta{0.0, 0.0};
  bool conj_a = false;
  bool conj_b = false;
  // Sum the batch of products into one C (addbmm) instead of one C per batch.
  bool reduce_batch = false;
};

// Whether gemm() computes in `dtype` (the others throw KernelError).
bool gemm_supports(model::DType dtype);

// Runs the product. Throws KernelError for an unsupported dtype or a
// negative size. Zero-size products are well defined: k == 0 gives
// C = beta * C (and 0 when beta == 0).
void gemm(const GemmArgs& args);

}  // namespace npu::kernels::linalg
