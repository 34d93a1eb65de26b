// One LSTM layer/direction over a sequence (lstm_layer.h): the products on
// the GEMM engine in the compute type, the gates' pointwise math on Eigen's
// vectorized logistic/tanh (this file is built with the Cube kernels' ISA
// flags, CMakeLists.txt, as the layer is matrix work).
#include "kernels/rnn/lstm_layer.h"

#include <string>

#include "kernels/rnn/layer_support.h"

namespace npu::kernels {

namespace {

using namespace rnn_layer;  // NOLINT: the shared layer helpers (layer_support.h)

constexpr const char* kWhat = "lstm layer: ";

[[noreturn]] void fail(const std::string& what) { throw KernelError(kWhat + what); }

Steps steps_of(const LstmLayerArgs& a) { return rnn_layer::steps_of(a.input, a.batch_sizes, kWhat); }

template <class T, class C>
void forward_impl(const LstmLayerArgs& a, const Steps& s, const TensorView& output, const TensorView& hy,
                  const TensorView& cy, const TensorView& reserve) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t I = a.input.sizes.back();
  const int64_t W = lstm_reserve_width(H);
  C* res = reserve.ptr<C>();
  // Every step's input projection at once, into the gate columns of the reserve.
  {
    const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
    const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/true);
    product<C>(s.N, 4 * H, I, x.m, wih.m, dense(res, W), 0.0);
  }
  std::vector<C> bias(static_cast<std::size_t>(4 * H), C(0));
  std::vector<C> scratch(static_cast<std::size_t>(4 * H));
  for (const auto* b : {&a.bias_ih, &a.bias_hh}) {
    if (!b->has_value()) continue;
    load<T, C>(**b, 1, 4 * H, scratch.data());
    for (int64_t j = 0; j < 4 * H; ++j) bias[j] += scratch[j];
  }
  const Scratch<C> whh_t = dense_copy<T, C>(a.weight_hh, /*transpose=*/true);  // [H, 4H]
  std::vector<C> h(static_cast<std::size_t>(s.B * H)), c(static_cast<std::size_t>(s.B * H));
  load<T, C>(a.hx, s.B, H, h.data());
  load<T, C>(a.cx, s.B, H, c.data());
  const ConstVec<C> bi(bias.data(), H), bf(bias.data() + H, H), bg(bias.data() + 2 * H, H),
      bo(bias.data() + 3 * H, H);
  const SeqRows<T> out = seq_rows<T>(output, s);
  for (int64_t step = 0; step < s.T; ++step) {
    const int64_t t = a.reverse ? s.T - 1 - step : step;
    const int64_t n = s.batch[t];
    C* rows = res + s.offset[t] * W;
    recurrent_product<C>(n, H, 4 * H, h.data(), H, whh_t.data(), rows, W, /*accumulate=*/true);
    for (int64_t b = 0; b < n; ++b) {
      C* r = rows + b * W;
      Vec<C> gi(r, H), gf(r + H, H), gg(r + 2 * H, H), go(r + 3 * H, H), cn(r + 4 * H, H), hn(r + 5 * H, H);
      Vec<C> cs(c.data() + b * H, H), hs(h.data() + b * H, H);
      // sigmoid(x) = (1 + tanh(x / 2)) / 2: Eigen vectorizes tanh, its
      // logistic() is scalar exp per element (most of a step's time).
      gi = ((gi + bi) * C(0.5)).tanh() * C(0.5) + C(0.5);
      gf = ((gf + bf) * C(0.5)).tanh() * C(0.5) + C(0.5);
      gg = (gg + bg).tanh();
      go = ((go + bo) * C(0.5)).tanh() * C(0.5) + C(0.5);
      cn = gf * cs + gi * gg;
      hn = go * cn.tanh();
      cs = cn;
      hs = hn;
      T* y = out.row(t, b);
      for (int64_t u = 0; u < H; ++u) y[u * out.col] = convert<T>(hn[u]);
    }
  }
  store<T, C>(hy, s.B, H, h.data());
  store<T, C>(cy, s.B, H, c.data());
}

template <class T, class C>
void backward_impl(const LstmLayerArgs& a, const Steps& s, const TensorView& reserve, const LstmLayerGrads& g,
                   const LstmLayerGradOutputs& out) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t I = a.input.sizes.back();
  const int64_t W = lstm_reserve_width(H);
  const int64_t G = 4 * H;
  const C* res = reserve.ptr<const C>();
  std::vector<C> hx(static_cast<std::size_t>(s.B * H)), cx(static_cast<std::size_t>(s.B * H));
  load<T, C>(a.hx, s.B, H, hx.data());
  load<T, C>(a.cx, s.B, H, cx.data());
  std::vector<C> dh(static_cast<std::size_t>(s.B * H), C(0)), dc(static_cast<std::size_t>(s.B * H), C(0));
  if (g.grad_hy) load<T, C>(*g.grad_hy, s.B, H, dh.data());
  if (g.grad_cy) load<T, C>(*g.grad_cy, s.B, H, dc.data());
  // The gates' pre-activation gradients of every row, and the hidden state
  // each row's step started from (for the recurrent weight's gradient).
  const Scratch<C> dgates(s.N * G);
  const Scratch<C> hprev(s.N * H);
  const Scratch<C> whh = dense_copy<T, C>(a.weight_hh, /*transpose=*/false);  // [4H, H]
  std::optional<SeqRows<const T>> dy;
  if (g.grad_output) dy = seq_rows<const T>(*g.grad_output, s);
  for (int64_t step = s.T - 1; step >= 0; --step) {
    const int64_t t = a.reverse ? s.T - 1 - step : step;
    const int64_t tp = a.reverse ? t + 1 : t - 1;  // the step before, in processing order
    const int64_t n = s.batch[t];
    for (int64_t b = 0; b < n; ++b) {
      const int64_t row = s.offset[t] + b;
      const C* r = res + row * W;
      const bool from_prev = step > 0 && b < s.batch[tp];
      const C* r_prev = from_prev ? res + (s.offset[tp] + b) * W : nullptr;
      const C* c_prev = from_prev ? r_prev + 4 * H : cx.data() + b * H;
      const C* h_prev = from_prev ? r_prev + 5 * H : hx.data() + b * H;
      std::copy(h_prev, h_prev + H, hprev.data() + row * H);
      Vec<C> dhb(dh.data() + b * H, H), dcb(dc.data() + b * H, H);
      if (dy) {
        const T* d = dy->row(t, b);
        for (int64_t u = 0; u < H; ++u) dhb[u] += convert<C>(d[u * dy->col]);
      }
      const ConstVec<C> gi(r, H), gf(r + H, H), gg(r + 2 * H, H), go(r + 3 * H, H), cn(r + 4 * H, H),
          cp(c_prev, H);
      const Eigen::Array<C, Eigen::Dynamic, 1> tc = cn.tanh();
      const Eigen::Array<C, Eigen::Dynamic, 1> dct = dcb + dhb * go * (C(1) - tc.square());
      C* d = dgates.data() + row * G;
      Vec<C>(d, H) = dct * gg * gi * (C(1) - gi);
      Vec<C>(d + H, H) = dct * cp * gf * (C(1) - gf);
      Vec<C>(d + 2 * H, H) = dct * gi * (C(1) - gg.square());
      Vec<C>(d + 3 * H, H) = dhb * tc * go * (C(1) - go);
      dcb = dct * gf;
    }
    // The hidden state's gradient flowing into the step before.
    recurrent_product<C>(n, G, H, dgates.data() + s.offset[t] * G, G, whh.data(), dh.data(), H,
                         /*accumulate=*/false);
  }
  store<T, C>(out.grad_hx, s.B, H, dh.data());
  store<T, C>(out.grad_cx, s.B, H, dc.data());
  const GemmMatrix dgates_t{dgates.data(), 1, G};  // [G, N]
  {
    // grad_input = dgates W_ih, row by row into the sequence's layout
    const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/false);
    const Scratch<C> dx(s.N * I);
    product<C>(s.N, I, G, dense(dgates.data(), G), wih.m, dense(dx.data(), I), 0.0);
    const SeqRows<T> gx = seq_rows<T>(out.grad_input, s);
    for (int64_t t = 0; t < s.T; ++t) {
      for (int64_t b = 0; b < s.batch[t]; ++b) {
        T* dst = gx.row(t, b);
        const C* src = dx.data() + (s.offset[t] + b) * I;
        for (int64_t j = 0; j < I; ++j) dst[j * gx.col] = convert<T>(src[j]);
      }
    }
  }
  // The weights' gradients, each one product over all rows.
  const auto weight_grad = [&](const GemmMatrix& rhs, int64_t cols, const TensorView& dst) {
    if constexpr (std::is_same_v<T, C>) {
      product<C>(G, cols, s.N, dgates_t, rhs, GemmMatrix{dst.data, dst.strides[0], dst.strides[1]}, 0.0);
    } else {
      const Scratch<C> buf(G * cols);
      product<C>(G, cols, s.N, dgates_t, rhs, dense(buf.data(), cols), 0.0);
      store<T, C>(dst, G, cols, buf.data());
    }
  };
  {
    const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
    weight_grad(x.m, I, out.grad_weight_ih);
  }
  weight_grad(dense(hprev.data(), H), H, out.grad_weight_hh);
  if (out.grad_bias_ih || out.grad_bias_hh) {
    using RowMajor = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Matrix<C, 1, Eigen::Dynamic> db =
        Eigen::Map<const RowMajor>(dgates.data(), s.N, G).colwise().sum();
    if (out.grad_bias_ih) store<T, C>(*out.grad_bias_ih, 1, G, db.data());
    if (out.grad_bias_hh) store<T, C>(*out.grad_bias_hh, 1, G, db.data());
  }
}

void require(const TensorView& v, const Shape& shape, DType dtype, const char* name) {
  require_operand(v, shape, dtype, name, kWhat);
}

// Checks the forward's arguments; returns the layout and the hidden size.
Steps check_args(const LstmLayerArgs& a) {
  const Steps s = steps_of(a);
  const DType dt = a.input.dtype;
  visit_layer_dtype(dt, kWhat, [](auto) {});
  if (a.weight_hh.dim() != 2 || a.weight_hh.sizes[0] != 4 * a.weight_hh.sizes[1]) {
    fail("weightHh must be [4 * hidden, hidden], got " + shape_str(a.weight_hh.sizes));
  }
  const int64_t H = a.weight_hh.sizes[1];
  require(a.weight_hh, Shape{4 * H, H}, dt, "weightHh");
  require(a.weight_ih, Shape{4 * H, a.input.sizes.back()}, dt, "weightIh");
  if (a.bias_ih) require(*a.bias_ih, Shape{4 * H}, dt, "biasIh");
  if (a.bias_hh) require(*a.bias_hh, Shape{4 * H}, dt, "biasHh");
  require(a.hx, Shape{s.B, H}, dt, "hx");
  require(a.cx, Shape{s.B, H}, dt, "cx");
  return s;
}

Shape seq_shape(const Steps& s, int64_t cols) { return s.packed ? Shape{s.N, cols} : Shape{s.T, s.B, cols}; }

void check_reserve(const Steps& s, int64_t H, DType input, const TensorView& reserve) {
  if (reserve.sizes != Shape{s.N, lstm_reserve_width(H)} || reserve.dtype != lstm_reserve_dtype(input) ||
      !reserve.is_contiguous()) {
    fail("reserve must be a contiguous " + shape_str(Shape{s.N, lstm_reserve_width(H)}) + " tensor of " +
         model::dtype_name(lstm_reserve_dtype(input)) + ", got " + shape_str(reserve.sizes) + " of " +
         model::dtype_name(reserve.dtype));
  }
}

}  // namespace

DType lstm_reserve_dtype(DType input) { return input == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_lstm_layer(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                      const TensorView& reserve) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  require(output, seq_shape(s, H), a.input.dtype, "output");
  require(hy, Shape{s.B, H}, a.input.dtype, "hy");
  require(cy, Shape{s.B, H}, a.input.dtype, "cy");
  check_reserve(s, H, a.input.dtype, reserve);
}

void lstm_layer_forward(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                        const TensorView& reserve) {
  check_lstm_layer(a, output, hy, cy, reserve);
  const Steps s = steps_of(a);
  visit_layer_dtype(a.input.dtype, kWhat, [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_impl<T, opmath_t<T>>(a, s, output, hy, cy, reserve);
  });
}

void check_lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                               const LstmLayerGradOutputs& out) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  const DType dt = a.input.dtype;
  check_reserve(s, H, dt, reserve);
  if (g.grad_output) require(*g.grad_output, seq_shape(s, H), dt, "gradOutput");
  if (g.grad_hy) require(*g.grad_hy, Shape{s.B, H}, dt, "gradHy");
  if (g.grad_cy) require(*g.grad_cy, Shape{s.B, H}, dt, "gradCy");
  require(out.grad_input, a.input.sizes, dt, "gradInput");
  require(out.grad_weight_ih, a.weight_ih.sizes, dt, "gradWeightIh");
  require(out.grad_weight_hh, a.weight_hh.sizes, dt, "gradWeightHh");
  if (out.grad_bias_ih) require(*out.grad_bias_ih, Shape{4 * H}, dt, "gradBiasIh");
  if (out.grad_bias_hh) require(*out.grad_bias_hh, Shape{4 * H}, dt, "gradBiasHh");
  require(out.grad_hx, Shape{s.B, H}, dt, "gradHx");
  require(out.grad_cx, Shape{s.B, H}, dt, "gradCx");
}

void lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                         const LstmLayerGradOutputs& out) {
  check_lstm_layer_backward(a, reserve, g, out);
  const Steps s = steps_of(a);
  visit_layer_dtype(a.input.dtype, kWhat, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_impl<T, opmath_t<T>>(a, s, reserve, g, out);
  });
}

}  // namespace npu::kernels
