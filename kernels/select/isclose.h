// Closeness of two tensors elementwise, PyTorch's isclose: equal, or both
// NaN when NaNs count as equal, or a finite difference within
// atol + |rtol * other|. CANN's aclnnIsClose runs it for the real torch_npu.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct IsCloseArgs {
  double rtol = 1e-5;
  double atol = 1e-8;
  bool equal_nan = false;
};

// Throws KernelError naming the operand: self and other of one non-complex
// dtype, broadcastable to out's shape; out bool.
void check_isclose(const TensorView& out, const TensorView& self, const TensorView& other);

// out = isclose(self, other). Floating dtypes compute in their own dtype,
// rounding each intermediate (difference, rtol * other, the sum) to it as
// PyTorch CPU's elementwise ops do; integers and bool convert to float32
// first and compute there, as PyTorch does.
void isclose(const TensorView& out, const TensorView& self, const TensorView& other, const IsCloseArgs& args);

}  // namespace npu::kernels
