// Normalization over the trailing elements of each row: layer norm and RMS
// norm, forward and backward. The input is read as [M, N] rows (N: the
// elements of the `normalized_dims` trailing dims); the affine parameters
// have N elements, the saved statistics M. float16/bfloat16 compute in float, as PyTorch's CPU kernels do;
// sums accumulate in double. Optional operands are null.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct LayerNormForward {
  int64_t normalized_dims = 1;         // trailing dims normalized together (a row)
  const TensorView* weight = nullptr;  // [N]; null: 1
  const TensorView* bias = nullptr;    // [N]; null: 0
  double eps = 1e-5;
  const TensorView* mean = nullptr;  // M elements: each row's mean (may be null)
  const TensorView* rstd = nullptr;  // M elements: 1 / sqrt(var + eps) (may be null)
};

// output = (input - mean) * rstd * weight + bias, in the order CPU
// evaluates it for the input's dtype (kernels/norm/row_norm.cpp).
void layer_norm(const TensorView& output, const TensorView& input, const LayerNormForward& args);

struct LayerNormBackward {
  int64_t normalized_dims = 1;
  const TensorView* mean = nullptr;  // M elements, as saved by the forward
  const TensorView* rstd = nullptr;
  const TensorView* weight = nullptr;
  const TensorView* grad_input = nullptr;  // each output may be null (not wanted)
  const TensorView* grad_weight = nullptr;
  const TensorView* grad_bias = nullptr;
};

void layer_norm_backward(const TensorView& grad_out, const TensorView& input, const LayerNormBackward& args);

struct RmsNormForward {
  int64_t normalized_dims = 1;
  const TensorView* weight = nullptr;  // [N]; null: 1
  double eps = 1e-6;
  const TensorView* rstd = nullptr;  // M elements: 1 / sqrt(mean(x^2) + eps) (may be null)
};

// output = (input * rstd) * weight.
void rms_norm(const TensorView& output, const TensorView& input, const RmsNormForward& args);

struct RmsNormBackward {
  int64_t normalized_dims = 1;
  const TensorView* rstd = nullptr;  // M elements, as saved by the forward
  const TensorView* weight = nullptr;
  const TensorView* grad_input = nullptr;  // may be null
  const TensorView* grad_weight = nullptr;  // may be null
};

void rms_norm_backward(const TensorView& grad_out, const TensorView& input, const RmsNormBackward& args);

}  // namespace npu::kernels
