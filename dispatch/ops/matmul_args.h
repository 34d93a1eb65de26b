// The matrix-product family's argument conversions, used by the `map:`
// expressions of ops/table/matmul.yaml.
#pragma once

#include <cstdint>

#include <ATen/ATen.h>

namespace npu::table {

// The cubeMathType torch_npu passes by default (torch.npu.matmul.allow_hf32
// off): KEEP_DTYPE. The emulator computes every mode as this one.
inline constexpr int8_t kCubeKeepDtype = 0;

// PyTorch hands matrix products tensors with the conjugate or negative bit
// set (its Conjugate fallback passes them through, expecting BLAS-style
// kernels to read them conjugated). The aclnn ops read plain memory: such an
// operand is materialized first; any other is the same tensor.
at::Tensor plain(const at::Tensor& t);

}  // namespace npu::table
