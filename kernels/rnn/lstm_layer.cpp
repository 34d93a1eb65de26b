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

template <class T, class C>
void forward_impl(const LstmLayerArgs& a, const Steps& s, const TensorView& output, const TensorView& hy,
                  const TensorView& cy, const TensorView& reserve) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t W = lstm_reserve_width(H);
  C* res = reserve.ptr<C>();
  input_projection<T, C>(a, s, res, W);
  std::vector<C> bias(static_cast<std::size_t>(4 * H), C(0));
  std::vector<C> scratch(static_cast<std::size_t>(4 * H));
  for (const auto* b : {&a.bias_ih, &a.bias_hh}) {
    if (!b->has_value()) continue;
    load<T, C>(**b, 1, 4 * H, scratch.data());
    for (int64_t j = 0; j < 4 * H; ++j) bias[j] += scratch[j];
  }
  const Scratch<C> whh_t = dense_copy<T, C>(a.weight_hh, /*transpose=*/true);  // [H, 4H]
  std::vector<C> h = loaded<T, C>(a.hx, s.B, H), c = loaded<T, C>(a.cx, s.B, H);
  const ConstVec<C> bi(bias.data(), H), bf(bias.data() + H, H), bg(bias.data() + 2 * H, H),
      bo(bias.data() + 3 * H, H);
  forward_steps<T, C>(
      s, a.reverse, H, output,
      [&](int64_t t, int64_t n) {
        recurrent_product<C>(n, H, 4 * H, h.data(), H, whh_t.data(), res + s.offset[t] * W, W, /*accumulate=*/true);
      },
      [&](int64_t t, int64_t b) {
        C* r = res + (s.offset[t] + b) * W;
        Vec<C> gi(r, H), gf(r + H, H), gg(r + 2 * H, H), go(r + 3 * H, H), cn(r + 4 * H, H), hn(r + 5 * H, H);
        Vec<C> cs(c.data() + b * H, H), hs(h.data() + b * H, H);
        gi = sigmoid(gi + bi);
        gf = sigmoid(gf + bf);
        gg = (gg + bg).tanh();
        go = sigmoid(go + bo);
        cn = gf * cs + gi * gg;
        hn = go * cn.tanh();
        cs = cn;
        hs = hn;
        return hn.data();
      });
  store<T, C>(hy, s.B, H, h.data());
  store<T, C>(cy, s.B, H, c.data());
}

template <class T, class C>
void backward_impl(const LstmLayerArgs& a, const Steps& s, const TensorView& reserve, const LstmLayerGrads& g,
                   const LstmLayerGradOutputs& out) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t W = lstm_reserve_width(H);
  const int64_t G = 4 * H;
  const C* res = reserve.ptr<const C>();
  const std::vector<C> cx = loaded<T, C>(a.cx, s.B, H);
  std::vector<C> dh = loaded<T, C>(g.grad_hy, s.B, H), dc = loaded<T, C>(g.grad_cy, s.B, H);
  // The gates' pre-activation gradients of every row, and the hidden state
  // each row's step started from (for the recurrent weight's gradient).
  const Scratch<C> dgates(s.N * G);
  const Scratch<C> hprev(s.N * H);
  const Scratch<C> whh = dense_copy<T, C>(a.weight_hh, /*transpose=*/false);  // [4H, H]
  backward_steps<T, C>(
      a, s, res, W, /*h_col=*/5 * H, g, dh.data(), hprev.data(),
      [&](int64_t row, int64_t b, const C* prev, const C*) {
        const C* r = res + row * W;
        const C* c_prev = prev ? prev + 4 * H : cx.data() + b * H;
        const Vec<C> dhb(dh.data() + b * H, H);
        Vec<C> dcb(dc.data() + b * H, H);
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
      },
      [&](int64_t t, int64_t n) {
        // The hidden state's gradient flowing into the step before.
        recurrent_product<C>(n, G, H, dgates.data() + s.offset[t] * G, G, whh.data(), dh.data(), H,
                             /*accumulate=*/false);
      });
  store<T, C>(out.grad_hx, s.B, H, dh.data());
  store<T, C>(out.grad_cx, s.B, H, dc.data());
  parameter_grads<T, C>(a, s, dgates.data(), dgates.data(), hprev.data(), out);
}

void require(const TensorView& v, const Shape& shape, DType dtype, const char* name) {
  require_operand(v, shape, dtype, name, kWhat);
}

// Checks the forward's arguments; returns the layout.
Steps check_args(const LstmLayerArgs& a) {
  const Steps s = check_layer_args(a, 4, kWhat);
  require(a.cx, Shape{s.B, a.weight_hh.sizes[1]}, a.input.dtype, "cx");
  return s;
}

}  // namespace

DType lstm_reserve_dtype(DType input) { return reserve_dtype(input); }

void check_lstm_layer(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                      const TensorView& reserve) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  require(output, seq_shape(s, H), a.input.dtype, "output");
  require(hy, Shape{s.B, H}, a.input.dtype, "hy");
  require(cy, Shape{s.B, H}, a.input.dtype, "cy");
  check_reserve(s, lstm_reserve_width(H), a.input.dtype, reserve, kWhat);
}

void lstm_layer_forward(const LstmLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                        const TensorView& reserve) {
  check_lstm_layer(a, output, hy, cy, reserve);
  for_layer_dtype(a, kWhat, [&](auto tag, const Steps& s) {
    using T = typename decltype(tag)::type;
    forward_impl<T, opmath_t<T>>(a, s, output, hy, cy, reserve);
  });
}

void check_lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                               const LstmLayerGradOutputs& out) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  const DType dt = a.input.dtype;
  check_reserve(s, lstm_reserve_width(H), dt, reserve, kWhat);
  check_layer_grads(a, s, g, out, kWhat);
  if (g.grad_cy) require(*g.grad_cy, Shape{s.B, H}, dt, "gradCy");
  require(out.grad_cx, Shape{s.B, H}, dt, "gradCx");
}

void lstm_layer_backward(const LstmLayerArgs& a, const TensorView& reserve, const LstmLayerGrads& g,
                         const LstmLayerGradOutputs& out) {
  check_lstm_layer_backward(a, reserve, g, out);
  for_layer_dtype(a, kWhat, [&](auto tag, const Steps& s) {
    using T = typename decltype(tag)::type;
    backward_impl<T, opmath_t<T>>(a, s, reserve, g, out);
  });
}

}  // namespace npu::kernels
