// One GRU layer in one direction over a whole sequence, forward and backward
// (BPTT), one kernel each: what nn.GRU runs per layer/direction on npu.
//
// Per time step t, for the rows of the batch active at t (gate order r, z, n
// as PyTorch's weights):
//
//   gi = x_t W_ih^T + b_ih,   gh = h_{t-1} W_hh^T + b_hh        = [r | z | n] parts
//   r = sigmoid(gi_r + gh_r),  z = sigmoid(gi_z + gh_z)
//   n = tanh(gi_n + r * gh_n)
//   h_t = (1 - z) * n + z * h_{t-1},   output_t = h_t
//
// The input projection of every step is one GEMM before the recurrence; each
// step then computes h_{t-1} W_hh^T (one small product, kept apart from the
// input part because r scales only its n columns) and the gates' pointwise
// math. Sequence layouts (dense [T, B, X] any strides, or packed rows with
// batch sizes) and `reverse` are as for the LSTM layer (lstm_layer.h).
//
// The forward saves, per row of the sequence, [r | z | n | gh_n | h_t]
// (5 * H values in the compute type) in `reserve`, which the backward reads
// instead of recomputing. Reduced floats compute in float32, float64 in
// double; results round once into the outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct GruLayerArgs {
  TensorView input;                   // [T, B, I] or packed [N, I]
  TensorView weight_ih;               // [3H, I]
  TensorView weight_hh;               // [3H, H]
  std::optional<TensorView> bias_ih;  // [3H]
  std::optional<TensorView> bias_hh;  // [3H]
  TensorView hx;                      // [B, H]
  std::vector<int64_t> batch_sizes;   // empty: dense input; else packed, one per step
  bool reverse = false;
};

// The compute dtype of the reserve buffer (Float32, or Float64 for Float64 inputs).
DType gru_reserve_dtype(DType input);
// Values per sequence row in the reserve buffer, for hidden size H.
inline int64_t gru_reserve_width(int64_t hidden) { return 5 * hidden; }

// Throws KernelError naming what is wrong (shapes, dtypes, batch sizes).
void check_gru_layer(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve);

// output [T, B, H] (or packed [N, H]), hy [B, H]; reserve [rows, 5H].
void gru_layer_forward(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve);

struct GruLayerGrads {
  std::optional<TensorView> grad_output;  // like output; absent = zero
  std::optional<TensorView> grad_hy;      // [B, H]; absent = zero
};

struct GruLayerGradOutputs {
  TensorView grad_input;                   // like input
  TensorView grad_weight_ih;               // [3H, I]
  TensorView grad_weight_hh;               // [3H, H]
  std::optional<TensorView> grad_bias_ih;  // [3H]
  std::optional<TensorView> grad_bias_hh;  // [3H]
  TensorView grad_hx;                      // [B, H]
};

void check_gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                              const GruLayerGradOutputs& out);

// The gradients of gru_layer_forward's outputs, from its reserve buffer (the
// biases are not read). The weight gradients are each one GEMM over all steps.
void gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                        const GruLayerGradOutputs& out);

}  // namespace npu::kernels
