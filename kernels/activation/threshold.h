// threshold (relu is threshold 0, value 0) and its gradient.
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out = self <= threshold ? value : self; self is converted to out's dtype.
void threshold(const TensorView& out, const TensorView& self, const Scalar& threshold, const Scalar& value);

// out = self <= threshold ? 0 : grad_output.

// grad_output and self broadcast to out's shape and are converted to out's
// dtype (the common dtype); any real dtype.
void threshold_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                        const Scalar& threshold);

}  // namespace npu::kernels
