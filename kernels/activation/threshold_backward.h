// relu's (and threshold's) gradient: out = self <= threshold ? 0 : grad_output.
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// grad_output and self broadcast to out's shape and are converted to out's
// dtype (the common dtype); any real dtype.
void threshold_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                        const Scalar& threshold);

}  // namespace npu::kernels
