// FastGelu (CANN's aclnnFastGelu / aclnnFastGeluBackward, torch_npu's
// npu_fast_gelu): the sigmoid approximation of GELU, y = x * sigmoid(1.702 x).
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out = self / (1 + exp(-1.702 self)); out and self share shape, any real
// floating dtype (self is converted to out's dtype first).
void fast_gelu(const TensorView& out, const TensorView& self);

// grad_input = grad_output * d/dx fast_gelu(self)
//            = grad_output * s * (1 + 1.702 self (1 - s)), s = sigmoid(1.702 self).
void fast_gelu_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self);

}  // namespace npu::kernels
