// Host-memory tensors a kernel owns for the duration of one call: operands
// converted to the compute dtype, and results staged in the kernel's natural
// dtype before they are converted into the caller's output.
#pragma once

#include <memory>
#include <optional>

#include "kernels/copy/copy.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

class ScratchTensor {
 public:
  // Contiguous, uninitialized.
  ScratchTensor(DType dtype, const Shape& sizes);
  const TensorView& view() const { return view_; }

 private:
  std::unique_ptr<unsigned char[]> buffer_;
  TensorView view_;
};

// `in` itself when it already has `dtype`, else a converted contiguous copy
// whose storage `holder` keeps alive.
TensorView input_as(const TensorView& in, DType dtype, std::optional<ScratchTensor>& holder);

// Runs f(view) on `out` when its dtype is `dtype`; otherwise on a scratch
// tensor of `dtype` and out's shape, then converts that into `out`.
template <class F>
void with_output_dtype(const TensorView& out, DType dtype, F&& f) {
  if (out.dtype == dtype) {
    f(out);
    return;
  }
  const ScratchTensor staged(dtype, out.sizes);
  f(staged.view());
  copy(out, staged.view());
}

}  // namespace npu::kernels
