// aten::_thnn_fused_lstm_cell / _thnn_fused_gru_cell for npu, composed of
// other aten ops. ATen's LSTM and GRU cells (nn.LSTM, nn.GRU, nn.LSTMCell,
// nn.GRUCell) call these fused ops whenever the input is on a PrivateUse1
// device; PyTorch has kernels for them only on CUDA, so the CPU fallback
// cannot run them. Composed here of native pointwise ops (sigmoid, tanh, mul,
// add) they run on npu, and because the kernel is registered for autograd too,
// autograd differentiates the composition (the fused backward ops, also
// CUDA-only, are never needed). The math is the one CPU's unfused cells
// compute, so results match CPU within rounding. A native fused kernel can
// replace this later.
#include <optional>
#include <tuple>

#include <ATen/ATen.h>

namespace npu::ops {

namespace {

// `gates` plus the bias, if the cell has biases (both or neither).
at::Tensor with_bias(const at::Tensor& gates, const std::optional<at::Tensor>& bias) {
  return bias.has_value() && bias->defined() ? gates + *bias : gates;
}

void check_cell_arguments(const char* op, const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                          const at::Tensor& state, int64_t gate_count, const std::optional<at::Tensor>& input_bias,
                          const std::optional<at::Tensor>& hidden_bias) {
  const bool has_input_bias = input_bias.has_value() && input_bias->defined();
  const bool has_hidden_bias = hidden_bias.has_value() && hidden_bias->defined();
  TORCH_CHECK(has_input_bias == has_hidden_bias, op, ": input_bias and hidden_bias must both be given or both be None");
  TORCH_CHECK(input_gates.dim() == 2 && input_gates.sizes() == hidden_gates.sizes(), op,
              ": input_gates and hidden_gates must be 2-D of the same shape, got ", input_gates.sizes(), " and ",
              hidden_gates.sizes());
  TORCH_CHECK(state.dim() == 2 && state.size(0) == input_gates.size(0) &&
                  state.size(1) * gate_count == input_gates.size(1),
              op, ": the state must be [batch, hidden] with gates [batch, ", gate_count, " * hidden], got state ",
              state.sizes(), " and gates ", input_gates.sizes());
}

}  // namespace

// Returns (hy, cy, gates): gates = input_gates + hidden_gates (+ biases),
// chunked into input, forget, cell and output gates.
std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell(const at::Tensor& input_gates,
                                                                const at::Tensor& hidden_gates, const at::Tensor& cx,
                                                                const std::optional<at::Tensor>& input_bias,
                                                                const std::optional<at::Tensor>& hidden_bias) {
  check_cell_arguments("_thnn_fused_lstm_cell", input_gates, hidden_gates, cx, 4, input_bias, hidden_bias);
  const at::Tensor gates = with_bias(hidden_gates, hidden_bias) + with_bias(input_gates, input_bias);
  const auto chunks = gates.unsafe_chunk(4, 1);
  const at::Tensor in_gate = chunks[0].sigmoid();
  const at::Tensor forget_gate = chunks[1].sigmoid();
  const at::Tensor cell_gate = chunks[2].tanh();
  const at::Tensor out_gate = chunks[3].sigmoid();
  at::Tensor cy = forget_gate * cx + in_gate * cell_gate;
  at::Tensor hy = out_gate * cy.tanh();
  return {std::move(hy), std::move(cy), gates};
}

// Returns (hy, gates): reset r, update z and new n gates; the hidden part of
// n is scaled by r after its bias is added.
std::tuple<at::Tensor, at::Tensor> fused_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                                                  const at::Tensor& hx, const std::optional<at::Tensor>& input_bias,
                                                  const std::optional<at::Tensor>& hidden_bias) {
  check_cell_arguments("_thnn_fused_gru_cell", input_gates, hidden_gates, hx, 3, input_bias, hidden_bias);
  const at::Tensor in = with_bias(input_gates, input_bias);
  const at::Tensor hidden = with_bias(hidden_gates, hidden_bias);
  const auto in_chunks = in.unsafe_chunk(3, 1);
  const auto hidden_chunks = hidden.unsafe_chunk(3, 1);
  const at::Tensor reset_gate = (hidden_chunks[0] + in_chunks[0]).sigmoid();
  const at::Tensor update_gate = (hidden_chunks[1] + in_chunks[1]).sigmoid();
  const at::Tensor new_gate = (in_chunks[2] + reset_gate * hidden_chunks[2]).tanh();
  at::Tensor hy = (hx - new_gate) * update_gate + new_gate;
  return {std::move(hy), at::cat({in, hidden}, 1)};
}

}  // namespace npu::ops
