// Whole GRU layers on npu (ops/table/rnn.yaml): gru.input / gru.data.
//
// ATen's gru (CompositeImplicitAutograd) runs a cell per time step: two
// GEMMs and the fused GRU cell's pointwise ops per step, each recorded by
// autograd. Registered here for PrivateUse1 and AutogradPrivateUse1, gru
// loops over layers and directions itself and runs each as one
// aclnnNpuGruLayer launch over every time step, inside a C++ autograd
// Function whose backward is one aclnnNpuGruLayerBackward launch (BPTT).
//
// Why a Function of our own: the LSTM layers ride on aten::mkldnn_rnn_layer,
// whose derivative formula PyTorch has, but its double backward is PyTorch's
// composite of the LSTM equations and its signature carries an LSTM cell
// state; PyTorch's other layer ops with a derivative (_cudnn_rnn,
// miopen_rnn) take cuDNN's flat weight buffer and dropout state. For
// higher-order gradients (create_graph=True) the backward recomputes the
// layer with ATen's cells and differentiates that graph instead.
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/ops/gru_native.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/ops/norm_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/rnn_layer_serving.h"

namespace npu::ops {

namespace {

namespace caps = npu::table::caps;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One layer in one direction over time-major `input` (dense [T, B, I], or
// packed rows with batch_sizes): output and the final hidden state.
struct GruLayerFunction : torch::autograd::Function<GruLayerFunction> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& input, const at::Tensor& weight_ih,
                               const at::Tensor& weight_hh, const std::optional<at::Tensor>& bias_ih,
                               const std::optional<at::Tensor>& bias_hh, const at::Tensor& hx,
                               const std::vector<int64_t>& batch_sizes, bool reverse) {
    const bool packed = !batch_sizes.empty();
    const int64_t hidden = weight_hh.size(1);
    const int64_t batch = packed ? batch_sizes[0] : input.size(1);
    const int64_t rows = packed ? input.size(0) : input.size(0) * input.size(1);
    const auto options = input.options();
    at::Tensor output = packed ? at::empty({rows, hidden}, options) : at::empty({input.size(0), batch, hidden}, options);
    at::Tensor hy = at::empty({batch, hidden}, options);
    const c10::ScalarType reserve_dtype = input.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    at::Tensor reserve = at::empty({rows, 5 * hidden}, options.dtype(reserve_dtype));
    NPU_RUN(aclnnNpuGruLayer, input, weight_ih, weight_hh, bias_ih, bias_hh, hx,
            at::IntArrayRef(batch_sizes), reverse, output, hy, reserve);
    ctx->save_for_backward({input, weight_ih, weight_hh, hx, reserve, bias_ih.value_or(at::Tensor()),
                            bias_hh.value_or(at::Tensor())});
    ctx->saved_data["batch_sizes"] = batch_sizes;
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["has_biases"] = bias_ih.has_value();
    // Absent gradients stay absent (the backward op takes them as optional).
    ctx->set_materialize_grads(false);
    return {output, hy};
  }

  // The layer again as ATen's cells (native pointwise ops and GEMMs, every
  // step recorded), differentiated with create_graph: only for higher-order
  // gradients, where the recorded graph is what a second derivative needs.
  static variable_list differentiable_backward(AutogradContext* ctx, const variable_list& grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& input = saved[0];
    const std::vector<int64_t> batch_sizes = ctx->saved_data["batch_sizes"].toIntVector();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const std::vector<at::Tensor> params{saved[0], saved[1], saved[2], saved[5], saved[6], saved[3]};
    const bool packed = !batch_sizes.empty();
    const int64_t steps = packed ? static_cast<int64_t>(batch_sizes.size()) : input.size(0);
    std::vector<int64_t> offset(static_cast<std::size_t>(steps), 0);
    for (int64_t t = 1; packed && t < steps; ++t) offset[t] = offset[t - 1] + batch_sizes[t - 1];
    at::Tensor h = saved[3];
    std::vector<at::Tensor> outs(static_cast<std::size_t>(steps));
    for (int64_t step = 0; step < steps; ++step) {
      const int64_t t = reverse ? steps - 1 - step : step;
      const int64_t n = packed ? batch_sizes[t] : h.size(0);
      const at::Tensor x = packed ? input.narrow(0, offset[t], n) : input[t];
      // Rows past this step's batch keep their state (packed sequences).
      const at::Tensor next = at::gru_cell(x, h.narrow(0, 0, n), saved[1], saved[2], optional_of(saved[5]),
                                           optional_of(saved[6]));
      outs[t] = next;
      h = n < h.size(0) ? at::cat({next, h.narrow(0, n, h.size(0) - n)}) : next;
    }
    const at::Tensor output = packed ? at::cat(outs) : at::stack(outs);
    std::vector<at::Tensor> results, result_grads, wrt;
    for (const auto& [result, grad] : {std::pair{output, grads[0]}, std::pair{h, grads[1]}}) {
      if (!grad.defined()) continue;
      results.push_back(result);
      result_grads.push_back(grad);
    }
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (params[i].defined() && params[i].requires_grad()) {
        index.push_back(i);
        wrt.push_back(params[i]);
      }
    }
    variable_list out(8);
    if (results.empty() || wrt.empty()) return out;
    const variable_list g = torch::autograd::grad(results, wrt, result_grads, /*retain_graph=*/true,
                                                  /*create_graph=*/true, /*allow_unused=*/true);
    for (std::size_t k = 0; k < index.size(); ++k) out[index[k]] = g[k];
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    // create_graph=True: the gradient must itself be differentiable.
    if (at::GradMode::is_enabled()) return differentiable_backward(ctx, grads);
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& input = saved[0];
    const at::Tensor& weight_ih = saved[1];
    const at::Tensor& weight_hh = saved[2];
    const at::Tensor& hx = saved[3];
    const at::Tensor& reserve = saved[4];
    const std::vector<int64_t> batch_sizes = ctx->saved_data["batch_sizes"].toIntVector();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const bool has_biases = ctx->saved_data["has_biases"].toBool();
    const auto options = input.options();
    at::Tensor grad_input = at::empty(input.sizes(), options);
    at::Tensor grad_w_ih = at::empty(weight_ih.sizes(), options);
    at::Tensor grad_w_hh = at::empty(weight_hh.sizes(), options);
    at::Tensor grad_b_ih, grad_b_hh;
    if (has_biases) {
      grad_b_ih = at::empty({weight_hh.size(0)}, options);
      grad_b_hh = at::empty({weight_hh.size(0)}, options);
    }
    at::Tensor grad_hx = at::empty(hx.sizes(), options);
    NPU_RUN(aclnnNpuGruLayerBackward, input, weight_ih, weight_hh, hx, reserve, optional_of(grads[0]),
            optional_of(grads[1]), at::IntArrayRef(batch_sizes), reverse, grad_input, grad_w_ih, grad_w_hh,
            optional_of(grad_b_ih), optional_of(grad_b_hh), grad_hx);
    return {std::move(grad_input), std::move(grad_w_ih), std::move(grad_w_hh), std::move(grad_b_ih),
            std::move(grad_b_hh), std::move(grad_hx), at::Tensor(), at::Tensor()};
  }
};

// The layers of a GRU over time-major `input`: output and h_n.
std::tuple<at::Tensor, at::Tensor> run_layers(const at::Tensor& input, const std::vector<int64_t>& batch_sizes,
                                              const at::Tensor& hx, at::TensorList params, bool has_biases,
                                              int64_t num_layers, double dropout, bool train, bool bidirectional) {
  const int64_t per_layer = has_biases ? 4 : 2;
  // A bias-free GRU passes no biases (an undefined tensor is no autograd input).
  const auto bias = [has_biases](at::TensorList p, std::size_t i) {
    return has_biases ? std::optional<at::Tensor>(p[i]) : std::nullopt;
  };
  std::vector<at::Tensor> hy;
  at::Tensor output = over_layers(input, num_layers, bidirectional, dropout, train,
                                  [&](const at::Tensor& layer_input, int64_t index, bool reverse) {
    const at::TensorList p = params.slice(index * per_layer, per_layer);
    variable_list result =
        GruLayerFunction::apply(layer_input, p[0], p[1], bias(p, 2), bias(p, 3), hx[index], batch_sizes, reverse);
    hy.push_back(std::move(result[1]));
    return std::move(result[0]);
  });
  // One layer and direction: h_n is a view of its hy (no copy launch). hy is
  // not saved for the backward, so modifying h_n in place stays harmless.
  return {std::move(output), hy.size() == 1 ? hy[0].unsqueeze(0) : at::stack(hy, 0)};
}

bool gru_layers_serve(const at::Tensor& input, int64_t input_dim, const at::Tensor& hx, at::TensorList params,
                      bool has_biases, int64_t num_layers, bool bidirectional) {
  return layers_serve(caps::aclnnNpuGruLayer, caps::aclnnNpuGruLayerBackward, input, input_dim, hx, params,
                      has_biases, num_layers, bidirectional);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> gru_input(const at::Tensor& input, const at::Tensor& hx, at::TensorList params,
                                             bool has_biases, int64_t num_layers, double dropout, bool train,
                                             bool bidirectional, bool batch_first) {
  if (!gru_layers_serve(input, 3, hx, params, has_biases, num_layers, bidirectional)) {
    return at::native::gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
  }
  auto [output, hy] = run_layers(time_major(input, batch_first), {}, hx, params, has_biases, num_layers, dropout,
                                 train, bidirectional);
  return {batch_first ? output.transpose(0, 1) : output, std::move(hy)};
}

std::tuple<at::Tensor, at::Tensor> gru_data(const at::Tensor& data, const at::Tensor& batch_sizes,
                                            const at::Tensor& hx, at::TensorList params, bool has_biases,
                                            int64_t num_layers, double dropout, bool train, bool bidirectional) {
  const bool serves = gru_layers_serve(data, 2, hx, params, has_biases, num_layers, bidirectional);
  if (const std::optional<std::vector<int64_t>> steps = packed_steps(serves, batch_sizes)) {
    return run_layers(data, *steps, hx, params, has_biases, num_layers, dropout, train, bidirectional);
  }
  return at::native::gru(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
}

}  // namespace npu::ops
