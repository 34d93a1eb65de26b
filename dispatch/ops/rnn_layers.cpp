// Whole LSTM layers on npu (ops/table/rnn.yaml): lstm.input / lstm.data, and
// aten::mkldnn_rnn_layer (+ backward) as the differentiable per-layer op.
//
// ATen's lstm (CompositeImplicitAutograd) would run a cell per time step on
// npu: two GEMMs and the fused cell's pointwise ops per step, and autograd
// recording each. Registered here for PrivateUse1 and AutogradPrivateUse1,
// lstm loops over layers and directions itself and calls
// aten::mkldnn_rnn_layer for each: one aclnnNpuLstmLayer launch over every
// time step. PyTorch's autograd formula for mkldnn_rnn_layer calls
// mkldnn_rnn_layer_backward (one aclnnNpuLstmLayerBackward launch), from the
// reserve the forward returned as its fourth output; a double backward takes
// PyTorch's differentiable composite of that backward instead.
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/ops/lstm_native.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/norm_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/rnn_layer_serving.h"

namespace npu::ops {

namespace {

namespace caps = npu::table::caps;
using Result4 = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;
using Result7 = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

// mkldnn_rnn_layer's `mode` for an LSTM (ideep's rnn_kind::LSTM, as ATen passes it).
constexpr int64_t kLstmMode = 2;

// The layers of an LSTM over time-major `input` (dense [T, B, I], or packed
// rows with `batch_sizes`): output, h_n, c_n.
std::tuple<at::Tensor, at::Tensor, at::Tensor> run_layers(const at::Tensor& input, at::IntArrayRef batch_sizes,
                                                          at::TensorList hx, at::TensorList params, bool has_biases,
                                                          int64_t num_layers, double dropout, bool train,
                                                          bool bidirectional) {
  const int64_t per_layer = has_biases ? 4 : 2;
  const int64_t hidden = hx[0].size(2);
  // mkldnn_rnn_layer takes biases always; a bias-free LSTM passes zeros
  // (the op is told has_biases=false and ignores them).
  at::Tensor no_bias;
  if (!has_biases) no_bias = at::zeros({4 * hidden}, params[0].options());
  std::vector<at::Tensor> hy, cy;
  at::Tensor output = over_layers(input, num_layers, bidirectional, dropout, train,
                                  [&](const at::Tensor& layer_input, int64_t index, bool reverse) {
    const at::TensorList p = params.slice(index * per_layer, per_layer);
    auto [out, h, c, reserve] = at::mkldnn_rnn_layer(
        layer_input, p[0], p[1], has_biases ? p[2] : no_bias, has_biases ? p[3] : no_bias, hx[0][index],
        hx[1][index], reverse, batch_sizes, kLstmMode, hidden, num_layers, has_biases, bidirectional,
        /*batch_first=*/false, train);
    hy.push_back(std::move(h));
    cy.push_back(std::move(c));
    return std::move(out);
  });
  return {std::move(output), at::stack(hy, 0), at::stack(cy, 0)};
}

void check_lstm_mode(const char* op, int64_t mode) {
  TORCH_CHECK(mode == kLstmMode, op, " on npu computes LSTM layers only (mode ", kLstmMode, "), got mode ", mode,
              "; nn.GRU and nn.RNN run ATen's cell path");
}

// The batch of a layer's (time-major) input.
int64_t batch_of(const at::Tensor& x, at::IntArrayRef batch_sizes) {
  return batch_sizes.empty() ? x.size(1) : batch_sizes[0];
}

}  // namespace

Result4 lstm_layer(const at::Tensor& input, const at::Tensor& weight0, const at::Tensor& weight1,
                   const at::Tensor& weight2, const at::Tensor& weight3, const at::Tensor& hx_, const at::Tensor& cx_,
                   bool reverse, at::IntArrayRef batch_sizes, int64_t mode, int64_t hidden_size, int64_t num_layers,
                   bool has_biases, bool bidirectional, bool batch_first, bool train) {
  constexpr const char* kOp = "mkldnn_rnn_layer";
  if (!npu::run_native(caps::aclnnNpuLstmLayer, kOp, {input.scalar_type()})) {
    return npu::fallback_call<Result4>(kOp, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse,
                                       batch_sizes, mode, hidden_size, num_layers, has_biases, bidirectional,
                                       batch_first, train);
  }
  check_lstm_mode(kOp, mode);
  const bool packed = !batch_sizes.empty();
  TORCH_CHECK(input.dim() == (packed ? 2 : 3), kOp, ": input must be ",
              packed ? "2-D packed rows with batch_sizes" : "3-D", ", got ", input.dim(), "-D");
  TORCH_CHECK(weight1.dim() == 2 && weight1.size(1) == hidden_size, kOp, ": weight1 (weight_hh) must be [4 * ",
              hidden_size, ", ", hidden_size, "], got ", weight1.sizes());
  const at::Tensor x = batch_first && !packed ? input.transpose(0, 1) : input;
  const int64_t batch = batch_of(x, batch_sizes);
  TORCH_CHECK(hx_.numel() == batch * hidden_size && cx_.numel() == batch * hidden_size, kOp,
              ": hx_ and cx_ must hold [batch, hidden] = [", batch, ", ", hidden_size, "], got ", hx_.sizes(),
              " and ", cx_.sizes());
  const auto options = input.options();
  at::Tensor output = packed        ? at::empty({x.size(0), hidden_size}, options)
                      : batch_first ? at::empty({x.size(1), x.size(0), hidden_size}, options)
                                    : at::empty({x.size(0), x.size(1), hidden_size}, options);
  at::Tensor hy = at::empty({batch, hidden_size}, options);
  at::Tensor cy = at::empty({batch, hidden_size}, options);
  const c10::ScalarType reserve_dtype = input.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  at::Tensor reserve = at::empty({x.size(0) * (packed ? 1 : x.size(1)), 6 * hidden_size}, options.dtype(reserve_dtype));
  const std::optional<at::Tensor> bias_ih = has_biases ? std::optional<at::Tensor>(weight2) : std::nullopt;
  const std::optional<at::Tensor> bias_hh = has_biases ? std::optional<at::Tensor>(weight3) : std::nullopt;
  NPU_RUN(aclnnNpuLstmLayer, x, weight0, weight1, bias_ih, bias_hh, hx_.reshape({batch, hidden_size}),
          cx_.reshape({batch, hidden_size}), batch_sizes, reverse,
          batch_first && !packed ? output.transpose(0, 1) : output, hy, cy, reserve);
  return {std::move(output), hy.view(hx_.sizes()), cy.view(cx_.sizes()), std::move(reserve)};
}

Result7 lstm_layer_backward(const at::Tensor& input, const at::Tensor& weight1, const at::Tensor& weight2,
                            const at::Tensor& weight3, const at::Tensor& weight4, const at::Tensor& hx_,
                            const at::Tensor& cx_tmp, const at::Tensor& /*output*/, const at::Tensor& /*hy_*/,
                            const at::Tensor& /*cy_*/, const std::optional<at::Tensor>& grad_output,
                            const std::optional<at::Tensor>& grad_hy, const std::optional<at::Tensor>& grad_cy,
                            bool reverse, int64_t mode, int64_t hidden_size, int64_t /*num_layers*/, bool has_biases,
                            bool /*train*/, bool /*bidirectional*/, at::IntArrayRef batch_sizes, bool batch_first,
                            const at::Tensor& workspace) {
  constexpr const char* kOp = "mkldnn_rnn_layer_backward";
  TORCH_CHECK(npu::run_native(caps::aclnnNpuLstmLayerBackward, kOp, {input.scalar_type()}), kOp,
              ": aclnnNpuLstmLayerBackward is not available for ", input.scalar_type());
  check_lstm_mode(kOp, mode);
  const bool packed = !batch_sizes.empty();
  const bool transposed = batch_first && !packed;
  const at::Tensor x = transposed ? input.transpose(0, 1) : input;
  const int64_t batch = batch_of(x, batch_sizes);
  const auto options = input.options();
  const auto given = [](const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); };
  std::optional<at::Tensor> grad_y;
  if (given(grad_output)) grad_y = transposed ? grad_output->transpose(0, 1) : *grad_output;
  std::optional<at::Tensor> grad_h, grad_c;
  if (given(grad_hy)) grad_h = grad_hy->reshape({batch, hidden_size});
  if (given(grad_cy)) grad_c = grad_cy->reshape({batch, hidden_size});
  at::Tensor grad_input = at::empty(input.sizes(), options);
  at::Tensor grad_w_ih = at::empty(weight1.sizes(), options);
  at::Tensor grad_w_hh = at::empty(weight2.sizes(), options);
  at::Tensor grad_b_ih, grad_b_hh;
  if (has_biases) {
    grad_b_ih = at::empty(weight3.sizes(), options);
    grad_b_hh = at::empty(weight4.sizes(), options);
  }
  at::Tensor grad_hx = at::empty({batch, hidden_size}, options);
  at::Tensor grad_cx = at::empty({batch, hidden_size}, options);
  NPU_RUN(aclnnNpuLstmLayerBackward, x, weight1, weight2, hx_.reshape({batch, hidden_size}),
          cx_tmp.reshape({batch, hidden_size}), workspace, grad_y, grad_h, grad_c, batch_sizes, reverse,
          transposed ? grad_input.transpose(0, 1) : grad_input, grad_w_ih, grad_w_hh, optional_of(grad_b_ih),
          optional_of(grad_b_hh), grad_hx, grad_cx);
  return {std::move(grad_input),        std::move(grad_w_ih),          std::move(grad_w_hh),
          std::move(grad_b_ih),         std::move(grad_b_hh),          grad_hx.view(hx_.sizes()),
          grad_cx.view(cx_tmp.sizes())};
}

namespace {

bool lstm_layers_serve(const at::Tensor& input, int64_t input_dim, at::TensorList hx, at::TensorList params,
                       bool has_biases, int64_t num_layers, bool bidirectional) {
  // No projections (proj_size makes h smaller than c: states of one shape).
  return hx.size() == 2 && layers_serve(caps::aclnnNpuLstmLayer, caps::aclnnNpuLstmLayerBackward, input, input_dim,
                                        hx, params, has_biases, num_layers, bidirectional);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstm_input(const at::Tensor& input, at::TensorList hx,
                                                          at::TensorList params, bool has_biases, int64_t num_layers,
                                                          double dropout, bool train, bool bidirectional,
                                                          bool batch_first) {
  if (!lstm_layers_serve(input, 3, hx, params, has_biases, num_layers, bidirectional)) {
    return at::native::lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
  }
  auto [output, hy, cy] = run_layers(time_major(input, batch_first), {}, hx, params, has_biases, num_layers, dropout,
                                     train, bidirectional);
  return {batch_first ? output.transpose(0, 1) : output, std::move(hy), std::move(cy)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstm_data(const at::Tensor& data, const at::Tensor& batch_sizes,
                                                         at::TensorList hx, at::TensorList params, bool has_biases,
                                                         int64_t num_layers, double dropout, bool train,
                                                         bool bidirectional) {
  const bool serves = lstm_layers_serve(data, 2, hx, params, has_biases, num_layers, bidirectional);
  if (const std::optional<std::vector<int64_t>> steps = packed_steps(serves, batch_sizes)) {
    return run_layers(data, *steps, hx, params, has_biases, num_layers, dropout, train, bidirectional);
  }
  return at::native::lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
}

}  // namespace npu::ops
