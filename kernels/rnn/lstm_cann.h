// CANN's aclnnLSTM / aclnnLstmBackward contract for one unidirectional layer
// with biases (what torch_npu 2.13 sends to aclnn; it sends every other LSTM
// to the legacy aclop path), on npu-emu's LSTM layer kernel (lstm_layer.h).
//
// CANN saves, per layer, seven [T, B, H] tensors for the backward: the
// activated gates i (input), j (cell candidate, PyTorch's g), f (forget),
// o (output), the hidden and cell states h and c of every step, and
// tanh(c). The layer kernel keeps its own [T*B, 6H] reserve (i, f, g, o, c,
// h per row): the forward runs into a scratch reserve and copies it out
// into CANN's tensors; the backward rebuilds the reserve from them.
#pragma once

#include <optional>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct LstmCannLayer {
  TensorView input;      // [T, B, I], time-major (batch_first passes a permuted view)
  TensorView weight_ih;  // [4H, I], gates i, f, g, o as PyTorch
  TensorView weight_hh;  // [4H, H]
  TensorView bias_ih;    // [4H]
  TensorView bias_hh;    // [4H]
  TensorView hx;         // [B, H]
  TensorView cx;         // [B, H]
};

// CANN's saved tensors, each [T, B, H] in the input's dtype.
struct LstmCannSaved {
  TensorView i, j, f, o, h, c, tanhc;
};

// Throws KernelError naming what does not fit (shapes, dtypes).
void check_lstm_cann_forward(const LstmCannLayer& a, const TensorView& output, const TensorView& hy,
                             const TensorView& cy, const std::optional<LstmCannSaved>& saved);

// output [T, B, H], hy, cy [B, H]; `saved` (train) receives CANN's seven tensors.
void lstm_cann_forward(const LstmCannLayer& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                       const std::optional<LstmCannSaved>& saved);

struct LstmCannGrads {
  std::optional<TensorView> dy;  // [T, B, H]; absent = zero
  std::optional<TensorView> dh;  // [B, H]; absent = zero
  std::optional<TensorView> dc;  // [B, H]; absent = zero
};

struct LstmCannGradOutputs {
  TensorView dx;        // like input
  TensorView dh_prev;   // [B, H]
  TensorView dc_prev;   // [B, H]
  TensorView dw_ih, dw_hh, db_ih, db_hh;
};

void check_lstm_cann_backward(const LstmCannLayer& a, const LstmCannSaved& saved, const LstmCannGrads& g,
                              const LstmCannGradOutputs& out);

// The gradients of lstm_cann_forward from its saved tensors.
void lstm_cann_backward(const LstmCannLayer& a, const LstmCannSaved& saved, const LstmCannGrads& g,
                        const LstmCannGradOutputs& out);

}  // namespace npu::kernels
