// One LSTM layer in one direction over a whole sequence, forward and
// backward (BPTT), one kernel each: what nn.LSTM runs per layer/direction.
//
// Per time step t, for the rows of the batch active at t:
//
//   gates = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh   = [i | f | g | o] pre-activations
//   i, f, o = sigmoid(...), g = tanh(...)
//   c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t),   output_t = h_t
//
// The input projection of every step is one GEMM (kernels/linalg/gemm.h)
// before the recurrence; each step then adds h_{t-1} W_hh^T (one small GEMM)
// and applies the gates' pointwise math. `reverse` walks the steps from the
// last to the first (the backward direction of a bidirectional layer).
//
// Sequences are dense [T, B, features] (any strides) or packed: [N, features]
// rows with batch_sizes[t] rows at step t (non-increasing, as PyTorch packs
// them), step t's rows starting at the sum of the earlier batch sizes. Row b
// of the state is updated only at the steps where b < batch_sizes[t], so hy
// holds each sequence's state after its own last step (its first in the
// reverse direction), and a sequence joining late starts from its hx row.
//
// The forward saves, per row of the sequence, [i | f | g | o | c_t | h_t]
// (activated gates, cell and hidden state, 6 * H values in the compute type)
// in `reserve`: the backward reads the gates from it instead of recomputing.
// Reduced floats compute in float32, float64 in double; results round once
// into the outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct LstmLayerArgs {
  TensorView input;                 // [T, B, I] or packed [N, I]
  TensorView weight_ih;             // [4H, I]
  TensorView weight_hh;             // [4H, H]
  std::optional<TensorView> bias_ih;  // [4H]
  std::optional<TensorView> bias_hh;  // [4H]
  TensorView hx;                    // [B, H]
  TensorView cx;                    // [B, H]
  std::vector<int64_t> batch_sizes;  // empty: dense input; else packed, one per step
  bool reverse = false;
};

// The compute dtype of the reserve buffer for an input dtype (Float32, or
// Float64 for Float64 inputs).
DType lstm_reserve_dtype(DType input);
// Values per sequence row in the reserve buffer, for hidden size H.
inline int64_t lstm_reserve_width(int64_t hidden) { return 6 * hidden; }

// Throws KernelError naming what is wrong (shapes, dtypes, batch sizes).
void check_lstm_layer(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                      const TensorView& reserve);

// output [T, B, H] (or packed [N, H]), hy, cy [B, H]; reserve [rows, 6H] in
// lstm_reserve_dtype(input) (see above).
void lstm_layer_forward(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                        const TensorView& reserve);

struct LstmLayerGrads {
  std::optional<TensorView> grad_output;  // like output; absent = zero
  std::optional<TensorView> grad_hy;      // [B, H]; absent = zero
  std::optional<TensorView> grad_cy;      // [B, H]; absent = zero
};

struct LstmLayerGradOutputs {
  TensorView grad_input;      // like input
  TensorView grad_weight_ih;  // [4H, I]
  TensorView grad_weight_hh;  // [4H, H]
  std::optional<TensorView> grad_bias_ih;  // [4H]
  std::optional<TensorView> grad_bias_hh;  // [4H]
  TensorView grad_hx;         // [B, H]
  TensorView grad_cx;         // [B, H]
};

void check_lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                               const LstmLayerGradOutputs& out);

// The gradients of lstm_layer_forward's outputs, from its reserve buffer.
// The weight and bias gradients are each one GEMM (or sum) over all steps.
void lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                         const LstmLayerGradOutputs& out);

}  // namespace npu::kernels
