// One GRU layer/direction over a sequence (gru_layer.h): the products on the
// GEMM engine in the compute type, the gates' pointwise math on Eigen's
// vectorized tanh (built with the Cube kernels' ISA flags like the LSTM
// layer, CMakeLists.txt).
#include "kernels/rnn/gru_layer.h"

#include <string>

#include "kernels/rnn/layer_support.h"

namespace npu::kernels {

namespace {

using namespace rnn_layer;  // NOLINT: the shared layer helpers (layer_support.h)

constexpr const char* kWhat = "gru layer: ";

template <class T, class C>
void forward_impl(const GruLayerArgs& a, const Steps& s, const TensorView& output, const TensorView& hy,
                  const TensorView& reserve) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t G = 3 * H;
  const int64_t W = gru_reserve_width(H);
  C* res = reserve.ptr<C>();
  // Each step's gates replace their own input projection in place.
  input_projection<T, C>(a, s, res, W);
  const std::vector<C> bih = loaded<T, C>(a.bias_ih, 1, G), bhh = loaded<T, C>(a.bias_hh, 1, G);
  const ConstVec<C> bir(bih.data(), H), biz(bih.data() + H, H), bin(bih.data() + 2 * H, H);
  const ConstVec<C> bhr(bhh.data(), H), bhz(bhh.data() + H, H), bhn(bhh.data() + 2 * H, H);
  const Scratch<C> whh_t = dense_copy<T, C>(a.weight_hh, /*transpose=*/true);  // [H, 3H]
  const Scratch<C> gh(s.B * G);
  std::vector<C> h = loaded<T, C>(a.hx, s.B, H);
  forward_steps<T, C>(
      s, a.reverse, H, output,
      [&](int64_t, int64_t n) {
        recurrent_product<C>(n, H, G, h.data(), H, whh_t.data(), gh.data(), G, /*accumulate=*/false);
      },
      [&](int64_t t, int64_t b) {
        C* r = res + (s.offset[t] + b) * W;
        const C* hg = gh.data() + b * G;
        Vec<C> gr(r, H), gz(r + H, H), gn(r + 2 * H, H), hn(r + 3 * H, H), hout(r + 4 * H, H);
        Vec<C> hs(h.data() + b * H, H);
        gr = sigmoid(gr + bir + ConstVec<C>(hg, H) + bhr);
        gz = sigmoid(gz + biz + ConstVec<C>(hg + H, H) + bhz);
        hn = ConstVec<C>(hg + 2 * H, H) + bhn;
        gn = (gn + bin + gr * hn).tanh();
        hout = (C(1) - gz) * gn + gz * hs;
        hs = hout;
        return hout.data();
      });
  store<T, C>(hy, s.B, H, h.data());
}

template <class T, class C>
void backward_impl(const GruLayerArgs& a, const Steps& s, const TensorView& reserve, const GruLayerGrads& g,
                   const GruLayerGradOutputs& out) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t W = gru_reserve_width(H);
  const int64_t G = 3 * H;
  const C* res = reserve.ptr<const C>();
  std::vector<C> dh = loaded<T, C>(g.grad_hy, s.B, H);
  // The gradients of every row's input-side and hidden-side gate sums (they
  // differ in the n columns, where r scales the hidden side), and the hidden
  // state each row's step started from (for the recurrent weight's gradient).
  const Scratch<C> dgi(s.N * G);
  const Scratch<C> dgh(s.N * G);
  const Scratch<C> hprev(s.N * H);
  const Scratch<C> whh = dense_copy<T, C>(a.weight_hh, /*transpose=*/false);  // [3H, H]
  backward_steps<T, C>(
      a, s, res, W, /*h_col=*/4 * H, g, dh.data(), hprev.data(),
      [&](int64_t row, int64_t b, const C*, const C* h_prev) {
        const C* r = res + row * W;
        Vec<C> dhb(dh.data() + b * H, H);
        const ConstVec<C> gr(r, H), gz(r + H, H), gn(r + 2 * H, H), hn(r + 3 * H, H), hp(h_prev, H);
        const Eigen::Array<C, Eigen::Dynamic, 1> dn = dhb * (C(1) - gz) * (C(1) - gn.square());
        const Eigen::Array<C, Eigen::Dynamic, 1> dr = dn * hn * gr * (C(1) - gr);
        const Eigen::Array<C, Eigen::Dynamic, 1> dz = dhb * (hp - gn) * gz * (C(1) - gz);
        C* di = dgi.data() + row * G;
        C* dg = dgh.data() + row * G;
        Vec<C>(di, H) = dr;
        Vec<C>(dg, H) = dr;
        Vec<C>(di + H, H) = dz;
        Vec<C>(dg + H, H) = dz;
        Vec<C>(di + 2 * H, H) = dn;
        Vec<C>(dg + 2 * H, H) = dn * gr;
        dhb = dhb * gz;  // the direct path; the recurrent product adds the rest
      },
      [&](int64_t t, int64_t n) {
        recurrent_product<C>(n, G, H, dgh.data() + s.offset[t] * G, G, whh.data(), dh.data(), H,
                             /*accumulate=*/true);
      });
  store<T, C>(out.grad_hx, s.B, H, dh.data());
  parameter_grads<T, C>(a, s, dgi.data(), dgh.data(), hprev.data(), out);
}

void require(const TensorView& v, const Shape& shape, DType dtype, const char* name) {
  require_operand(v, shape, dtype, name, kWhat);
}

}  // namespace

DType gru_reserve_dtype(DType input) { return reserve_dtype(input); }

void check_gru_layer(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve) {
  const Steps s = check_layer_args(a, 3, kWhat);
  const int64_t H = a.weight_hh.sizes[1];
  require(output, seq_shape(s, H), a.input.dtype, "output");
  require(hy, Shape{s.B, H}, a.input.dtype, "hy");
  check_reserve(s, gru_reserve_width(H), a.input.dtype, reserve, kWhat);
}

void gru_layer_forward(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve) {
  check_gru_layer(a, output, hy, reserve);
  for_layer_dtype(a, kWhat, [&](auto tag, const Steps& s) {
    using T = typename decltype(tag)::type;
    forward_impl<T, opmath_t<T>>(a, s, output, hy, reserve);
  });
}

void check_gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                              const GruLayerGradOutputs& out) {
  const Steps s = check_layer_args(a, 3, kWhat);
  check_reserve(s, gru_reserve_width(a.weight_hh.sizes[1]), a.input.dtype, reserve, kWhat);
  check_layer_grads(a, s, g, out, kWhat);
}

void gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                        const GruLayerGradOutputs& out) {
  check_gru_layer_backward(a, reserve, g, out);
  for_layer_dtype(a, kWhat, [&](auto tag, const Steps& s) {
    using T = typename decltype(tag)::type;
    backward_impl<T, opmath_t<T>>(a, s, reserve, g, out);
  });
}

}  // namespace npu::kernels
