// The GEMM engine's bfloat16 product on the CPU's bf16 dot-product
// instruction (AVX512-BF16 vdpbf16ps), internal to kernels/linalg/.
//
// vdpbf16ps multiplies pairs of bf16 values exactly and adds both products
// to a float32 accumulator (float32 rounding, denormal inputs and outputs
// flushed to zero, as the instruction defines it): the arithmetic oneDNN
// runs for PyTorch CPU's bfloat16 matmul on such CPUs, at twice the
// float32 FMA rate. The engine's reduced-float path (gemm.cpp) asks
// bf16_dot_chosen() and, if so, runs the whole product here: into C
// directly with bf16_dot_gemm() when C is row-major (alpha, beta and the
// single rounding to bfloat16 applied to each finished tile, the same
// arithmetic as gemm.cpp's), else it takes the float32 product from
// bf16_dot_product() and rounds it into C itself.
//
// Compiled to a stub (bf16_dot_available() == false) when the compiler does
// not target AVX512-BF16; chosen at run time only if the CPU has it.
#pragma once

#include <cstdint>

#include "kernels/linalg/gemm.h"
#include "kernels/linalg/reused_buffer.h"

namespace npu::kernels::linalg {

// Compiled with AVX512-BF16 and running on a CPU that has it.
bool bf16_dot_available();

// Whether gemm() computes this bfloat16 product with bf16_dot_product():
// available, one C per batch item (reduce_batch with batch > 1 is split by
// the caller), no conjugation, and a product large enough for the
// micro-kernel's tiles (tiny and vector products stay on the float32 path).
bool bf16_dot_chosen(const GemmArgs& g);

// Whether bf16_dot_gemm() can write this C: bf16_dot_chosen(g) and C
// row-major with unit column stride (not blocked).
bool bf16_dot_writes_c(const GemmArgs& g);

// C[b] = R(alpha * op(A[b]) · op(B[b]) + beta * C[b]) for every batch item,
// R the rounding to bfloat16 of gemm.cpp's reduced-float path, with beta != 0
// as fma(alpha, acc, beta * C). Requires bf16_dot_writes_c(g). A and B any
// strides (blocked included).
void bf16_dot_gemm(const GemmArgs& g);

// op(A[b]) · op(B[b]) in float32 for every batch item (1 with reduce_batch):
// element (b, i, j) at data[b * batch_stride + i * row_stride + j].
struct ProductF32 {
  ReusedBuffer storage;
  float* data = nullptr;  // in storage
  int64_t row_stride = 0;
  int64_t batch_stride = 0;
};

// Requires bf16_dot_chosen(g). A and B any strides (blocked included).
ProductF32 bf16_dot_product(const GemmArgs& g);

}  // namespace npu::kernels::linalg
