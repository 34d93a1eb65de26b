// Batch normalization over dim 1 (channels) of an [N, C, *] input, forward
// and backward. Inputs are read in their own dtypes (weight, bias and the
// statistics may be float beside a float16/bfloat16 input); the input is
// computed in float (double for float64) and statistics accumulate in
// double. Optional operands are null.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct BatchNormForward {
  const TensorView* weight = nullptr;        // [C]; null: 1
  const TensorView* bias = nullptr;          // [C]; null: 0
  const TensorView* running_mean = nullptr;  // [C]; read in eval, updated in training
  const TensorView* running_var = nullptr;   // [C]; likewise (with the unbiased variance)
  bool training = true;
  double momentum = 0.1;
  double eps = 1e-5;
  const TensorView* save_mean = nullptr;    // [C]: the batch mean (training)
  const TensorView* save_invstd = nullptr;  // [C]: 1 / sqrt(batch var + eps) (training)
};

// output = (input - mean) * invstd * weight + bias with the batch's
// statistics (training) or the running ones (eval). Training updates the
// running statistics: r = (1 - momentum) * r + momentum * stat.
void batch_norm(const TensorView& output, const TensorView& input, const BatchNormForward& args);

struct BatchNormBackward {
  const TensorView* weight = nullptr;
  const TensorView* running_mean = nullptr;  // used in eval
  const TensorView* running_var = nullptr;
  const TensorView* save_mean = nullptr;  // used in training
  const TensorView* save_invstd = nullptr;
  bool training = true;
  double eps = 1e-5;
  const TensorView* grad_input = nullptr;  // each output may be null (not wanted)
  const TensorView* grad_weight = nullptr;
  const TensorView* grad_bias = nullptr;
};

void batch_norm_backward(const TensorView& grad_out, const TensorView& input, const BatchNormBackward& args);

}  // namespace npu::kernels
