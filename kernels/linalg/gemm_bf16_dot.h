// The GEMM engine's bfloat16 product on the CPU's bf16 dot-product
// instruction (AVX512-BF16 vdpbf16ps), internal to kernels/linalg/.
//
// vdpbf16ps multiplies pairs of bf16 values exactly and adds both products
// to a float32 accumulator (float32 rounding, denormal inputs and outputs
// flushed to zero, as the instruction defines it): the arithmetic oneDNN
// runs for PyTorch CPU's bfloat16 matmul on such CPUs, at twice the
// float32 FMA rate. The engine's reduced-float path (gemm.cpp) asks
// bf16_dot_chosen() and, if so, takes the float32 product from
// bf16_dot_product() instead of converting the operands to float32; alpha,
// beta and the single rounding to bfloat16 stay in gemm.cpp.
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
