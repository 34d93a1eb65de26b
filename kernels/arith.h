// The arithmetic binary family: out = a (op) b, with broadcasting. a, b and
// out share one dtype; callers convert mixed-dtype operands first (that is
// the aclnn contract: the op casts to the promoted type before computing).
#pragma once

#include "kernels/scalar.h"
#include "kernels/tensor_view.h"

namespace npu::kernels {

// out = a + alpha * b
void add(const TensorView& out, const TensorView& a, const TensorView& b, const Scalar& alpha);
// out = a * b
void mul(const TensorView& out, const TensorView& a, const TensorView& b);

}  // namespace npu::kernels
