// Task makers of the matrix-product family (ops/table/matmul.yaml): each
// checks one call's arguments on the host (ranks, shapes, one dtype for
// every tensor, cubeMathType) and returns the task that runs the product on
// the GEMM engine (kernels/linalg/gemm.h) when the stream reaches it.
//
// cubeMathType selects the Cube unit's arithmetic on hardware: 0 KEEP_DTYPE,
// 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32. Other values are
// ACLNN_ERR_PARAM_INVALID. The emulator accepts all four and computes every
// one of them as KEEP_DTYPE (float32 operands stay float32; float16/bfloat16
// accumulate in float32 and round once): never less precise than the
// hardware's mode, and equal to PyTorch CPU's results.
#pragma once

#include <cstdint>
#include <functional>

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

namespace npu::emu {

// How a product treats a leading batch dim: there is none (2-D operands:
// mm, addmm), one product per batch (3-D operands, batch dims equal: bmm,
// baddbmm), or the sum of the batch's products (addbmm).
enum class Batch { None, Each, Sum };

// out = self @ mat2: 2-D (Batch::None, mm) or 3-D (Batch::Each, bmm) operands.
std::function<void()> mm_task(const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType,
                              Batch batch);
// out = torch.matmul(self, mat2): 1-D operands as vectors, batch dims broadcast.
std::function<void()> matmul_task(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                  int8_t cubeMathType);
// out = beta * self + alpha * (a @ b), self broadcast to out's shape: a and b
// are mat1 and mat2 (Batch::None), or batch1 and batch2 (out [b, m, n] with
// Batch::Each, [m, n] with Batch::Sum).
std::function<void()> addmm_task(const aclTensor* self, const aclTensor* a, const aclTensor* b, const aclScalar* beta,
                                 const aclScalar* alpha, const aclTensor* out, int8_t cubeMathType, Batch batch);
// out = beta * self + alpha * (mat @ vec), self broadcast to out's [m].
std::function<void()> addmv_task(const aclTensor* self, const aclTensor* mat, const aclTensor* vec,
                                 const aclScalar* alpha, const aclScalar* beta, const aclTensor* out,
                                 int8_t cubeMathType);
// out = self @ vec.
std::function<void()> mv_task(const aclTensor* self, const aclTensor* vec, aclTensor* out, int8_t cubeMathType);
// out (0-dim) = sum(conj?(self) * tensor) over two 1-D tensors of one length.
std::function<void()> dot_task(const aclTensor* self, const aclTensor* tensor, aclTensor* out, bool conjugate);
// out = beta * self + alpha * outer(vec1, vec2); null scalars read as 1.
std::function<void()> addr_task(const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2,
                                const aclScalar* beta, const aclScalar* alpha, const aclTensor* out);

}  // namespace npu::emu
