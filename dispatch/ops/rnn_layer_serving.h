// What the whole-layer RNN kernels share (LSTM: dispatch/ops/rnn_layers.cpp,
// GRU: dispatch/ops/gru_layers.cpp): deciding whether their layer ops serve a
// call, and the loop over layers and directions. Each kernel keeps its own
// per-layer launch and states.
#pragma once

#include <optional>
#include <vector>

#include <ATen/ATen.h>

#include "dispatch/fallback/capability.h"

namespace npu::ops {

// Whether the layer ops (forward `fwd`, backward `bwd`) compute this call: npu
// tensors of one floating dtype both ops take; `states` (h, or h and c) of one
// shape [layers * directions, batch, hidden]; the parameter count ATen
// expects. Anything else keeps ATen's cell path, which raises ATen's own
// errors for bad arguments.
inline bool layers_serve(const AclnnCapability& fwd, const AclnnCapability& bwd, const at::Tensor& input,
                         int64_t input_dim, at::TensorList states, at::TensorList params, bool has_biases,
                         int64_t num_layers, bool bidirectional) {
  const c10::ScalarType dtype = input.scalar_type();
  if (!input.is_privateuseone() || input.dim() != input_dim || !at::isFloatingType(dtype) ||
      !fwd.symbol_present() || !bwd.symbol_present() || !fwd.dtypes.contains(dtype) || !bwd.dtypes.contains(dtype)) {
    return false;
  }
  const int64_t directions = bidirectional ? 2 : 1;
  if (static_cast<int64_t>(params.size()) != num_layers * directions * (has_biases ? 4 : 2)) return false;
  for (const at::TensorList list : {states, params}) {
    for (const at::Tensor& t : list) {
      if (!t.defined() || !t.is_privateuseone() || t.scalar_type() != dtype) return false;
    }
  }
  for (const at::Tensor& s : states) {
    if (s.dim() != 3 || s.sizes() != states[0].sizes() || s.size(0) != num_layers * directions) return false;
  }
  return true;
}

// A packed sequence's batch_sizes on the host when the layer ops serve the
// call (`serves`, from layers_serve) and can take them; else none (ATen's
// path then decides, and raises its own errors).
inline std::optional<std::vector<int64_t>> packed_steps(bool serves, const at::Tensor& batch_sizes) {
  if (!serves || batch_sizes.device().is_privateuseone() || batch_sizes.dim() != 1 ||
      batch_sizes.scalar_type() != at::kLong || batch_sizes.numel() == 0) {
    return std::nullopt;
  }
  const at::Tensor sizes = batch_sizes.contiguous();
  return std::vector<int64_t>(sizes.data_ptr<int64_t>(), sizes.data_ptr<int64_t>() + sizes.numel());
}

// A dense input time-major, with CPU's check (its oneDNN path checks this;
// ATen's cell path would return empty outputs).
inline at::Tensor time_major(const at::Tensor& input, bool batch_first) {
  const at::Tensor x = batch_first ? input.transpose(0, 1) : input;
  TORCH_CHECK(x.size(0) > 0, "Expected sequence length to be larger than 0 in RNN");
  return x;
}

// The layers over time-major `input`: `run_one(layer_input, index, reverse)`
// computes the layer and direction `index` (layer * directions + direction)
// and returns its output, keeping its final states itself. Between layers,
// dropout as ATen's _rnn_impl applies it (on the npu generator). Returns the
// last layer's output.
template <class RunOne>
at::Tensor over_layers(const at::Tensor& input, int64_t num_layers, bool bidirectional, double dropout, bool train,
                       const RunOne& run_one) {
  const int64_t directions = bidirectional ? 2 : 1;
  at::Tensor layer_input = input;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<at::Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      outputs.push_back(run_one(layer_input, layer * directions + direction, /*reverse=*/direction == 1));
    }
    layer_input = directions == 2 ? at::cat(outputs, -1) : outputs[0];
    if (dropout != 0 && train && layer < num_layers - 1) layer_input = at::dropout(layer_input, dropout, train);
  }
  return layer_input;
}

}  // namespace npu::ops
