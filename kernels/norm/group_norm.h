// Group normalization of an input read as [N, C, HxW]: the C channels fall
// into `group` groups of C / group channels, each (n, group) normalized over
// its C / group * HxW elements; weight and bias are per channel.
// float16/bfloat16 compute in float, as PyTorch's CPU kernel does; sums
// accumulate in double. Optional operands are null.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct GroupNormShape {
  int64_t n = 0;
  int64_t c = 0;
  int64_t hxw = 0;
  int64_t group = 1;
};

struct GroupNormForward {
  GroupNormShape shape;
  const TensorView* weight = nullptr;  // [C]; null: 1
  const TensorView* bias = nullptr;    // [C]; null: 0
  double eps = 1e-5;
  const TensorView* mean = nullptr;  // N * group elements (may be null)
  const TensorView* rstd = nullptr;  // N * group elements: 1 / sqrt(var + eps) (may be null)
};

// output = input * (rstd * weight) + (bias - rstd * weight * mean), the form
// CPU's kernel evaluates.
void group_norm(const TensorView& output, const TensorView& input, const GroupNormForward& args);

struct GroupNormBackward {
  GroupNormShape shape;
  const TensorView* mean = nullptr;  // as saved by the forward
  const TensorView* rstd = nullptr;
  const TensorView* weight = nullptr;
  const TensorView* grad_input = nullptr;  // each output may be null (not wanted)
  const TensorView* grad_weight = nullptr;
  const TensorView* grad_bias = nullptr;
};

void group_norm_backward(const TensorView& grad_out, const TensorView& input, const GroupNormBackward& args);

}  // namespace npu::kernels
