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

[[noreturn]] void fail(const std::string& what) { throw KernelError(kWhat + what); }

Steps steps_of(const GruLayerArgs& a) { return rnn_layer::steps_of(a.input, a.batch_sizes, kWhat); }

// sigmoid(x) = (1 + tanh(x / 2)) / 2: Eigen vectorizes tanh, not logistic's exp.
template <class E>
auto sigmoid(const E& x) {
  using C = typename E::Scalar;
  return (x * C(0.5)).tanh() * C(0.5) + C(0.5);
}

// Both biases as dense [3H] of C (zeros where absent).
template <class T, class C>
std::vector<C> bias_of(const std::optional<TensorView>& b, int64_t G) {
  std::vector<C> out(static_cast<std::size_t>(G), C(0));
  if (b) load<T, C>(*b, 1, G, out.data());
  return out;
}

template <class T, class C>
void forward_impl(const GruLayerArgs& a, const Steps& s, const TensorView& output, const TensorView& hy,
                  const TensorView& reserve) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t I = a.input.sizes.back();
  const int64_t G = 3 * H;
  const int64_t W = gru_reserve_width(H);
  C* res = reserve.ptr<C>();
  // Every step's input projection at once, into the first 3H columns of the
  // reserve; each step's gates then replace their own projection in place.
  {
    const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
    const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/true);
    product<C>(s.N, G, I, x.m, wih.m, dense(res, W), 0.0);
  }
  const std::vector<C> bih = bias_of<T, C>(a.bias_ih, G), bhh = bias_of<T, C>(a.bias_hh, G);
  const ConstVec<C> bir(bih.data(), H), biz(bih.data() + H, H), bin(bih.data() + 2 * H, H);
  const ConstVec<C> bhr(bhh.data(), H), bhz(bhh.data() + H, H), bhn(bhh.data() + 2 * H, H);
  const Scratch<C> whh_t = dense_copy<T, C>(a.weight_hh, /*transpose=*/true);  // [H, 3H]
  const Scratch<C> gh(s.B * G);
  std::vector<C> h(static_cast<std::size_t>(s.B * H));
  load<T, C>(a.hx, s.B, H, h.data());
  const SeqRows<T> out = seq_rows<T>(output, s);
  for (int64_t step = 0; step < s.T; ++step) {
    const int64_t t = a.reverse ? s.T - 1 - step : step;
    const int64_t n = s.batch[t];
    recurrent_product<C>(n, H, G, h.data(), H, whh_t.data(), gh.data(), G, /*accumulate=*/false);
    for (int64_t b = 0; b < n; ++b) {
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
      T* y = out.row(t, b);
      for (int64_t u = 0; u < H; ++u) y[u * out.col] = convert<T>(hout[u]);
    }
  }
  store<T, C>(hy, s.B, H, h.data());
}

template <class T, class C>
void backward_impl(const GruLayerArgs& a, const Steps& s, const TensorView& reserve, const GruLayerGrads& g,
                   const GruLayerGradOutputs& out) {
  const int64_t H = a.weight_hh.sizes[1];
  const int64_t I = a.input.sizes.back();
  const int64_t W = gru_reserve_width(H);
  const int64_t G = 3 * H;
  const C* res = reserve.ptr<const C>();
  std::vector<C> hx(static_cast<std::size_t>(s.B * H));
  load<T, C>(a.hx, s.B, H, hx.data());
  std::vector<C> dh(static_cast<std::size_t>(s.B * H), C(0));
  if (g.grad_hy) load<T, C>(*g.grad_hy, s.B, H, dh.data());
  // The gradients of every row's input-side and hidden-side gate sums (they
  // differ in the n columns, where r scales the hidden side), and the hidden
  // state each row's step started from (for the recurrent weight's gradient).
  const Scratch<C> dgi(s.N * G);
  const Scratch<C> dgh(s.N * G);
  const Scratch<C> hprev(s.N * H);
  const Scratch<C> whh = dense_copy<T, C>(a.weight_hh, /*transpose=*/false);  // [3H, H]
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
      const C* h_prev = from_prev ? res + (s.offset[tp] + b) * W + 4 * H : hx.data() + b * H;
      std::copy(h_prev, h_prev + H, hprev.data() + row * H);
      Vec<C> dhb(dh.data() + b * H, H);
      if (dy) {
        const T* d = dy->row(t, b);
        for (int64_t u = 0; u < H; ++u) dhb[u] += convert<C>(d[u * dy->col]);
      }
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
    }
    recurrent_product<C>(n, G, H, dgh.data() + s.offset[t] * G, G, whh.data(), dh.data(), H, /*accumulate=*/true);
  }
  store<T, C>(out.grad_hx, s.B, H, dh.data());
  {
    // grad_input = dgi W_ih, row by row into the sequence's layout
    const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/false);
    const Scratch<C> dx(s.N * I);
    product<C>(s.N, I, G, dense(dgi.data(), G), wih.m, dense(dx.data(), I), 0.0);
    const SeqRows<T> gx = seq_rows<T>(out.grad_input, s);
    for (int64_t t = 0; t < s.T; ++t) {
      for (int64_t b = 0; b < s.batch[t]; ++b) {
        T* dst = gx.row(t, b);
        const C* src = dx.data() + (s.offset[t] + b) * I;
        for (int64_t j = 0; j < I; ++j) dst[j * gx.col] = convert<T>(src[j]);
      }
    }
  }
  // The weights' gradients, each one product over all rows: d^T [N, G] times rhs [N, cols].
  const auto weight_grad = [&](const C* d, const GemmMatrix& rhs, int64_t cols, const TensorView& dst) {
    const GemmMatrix d_t{const_cast<C*>(d), 1, G};  // [G, N]
    if constexpr (std::is_same_v<T, C>) {
      product<C>(G, cols, s.N, d_t, rhs, GemmMatrix{dst.data, dst.strides[0], dst.strides[1]}, 0.0);
    } else {
      const Scratch<C> buf(G * cols);
      product<C>(G, cols, s.N, d_t, rhs, dense(buf.data(), cols), 0.0);
      store<T, C>(dst, G, cols, buf.data());
    }
  };
  {
    const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
    weight_grad(dgi.data(), x.m, I, out.grad_weight_ih);
  }
  weight_grad(dgh.data(), dense(hprev.data(), H), H, out.grad_weight_hh);
  using RowMajor = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if (out.grad_bias_ih) {
    const Eigen::Matrix<C, 1, Eigen::Dynamic> db = Eigen::Map<const RowMajor>(dgi.data(), s.N, G).colwise().sum();
    store<T, C>(*out.grad_bias_ih, 1, G, db.data());
  }
  if (out.grad_bias_hh) {
    const Eigen::Matrix<C, 1, Eigen::Dynamic> db = Eigen::Map<const RowMajor>(dgh.data(), s.N, G).colwise().sum();
    store<T, C>(*out.grad_bias_hh, 1, G, db.data());
  }
}

void require(const TensorView& v, const Shape& shape, DType dtype, const char* name) {
  require_operand(v, shape, dtype, name, kWhat);
}

// Checks the forward's arguments; returns the layout.
Steps check_args(const GruLayerArgs& a) {
  const Steps s = steps_of(a);
  const DType dt = a.input.dtype;
  visit_layer_dtype(dt, kWhat, [](auto) {});
  if (a.weight_hh.dim() != 2 || a.weight_hh.sizes[0] != 3 * a.weight_hh.sizes[1]) {
    fail("weightHh must be [3 * hidden, hidden], got " + shape_str(a.weight_hh.sizes));
  }
  const int64_t H = a.weight_hh.sizes[1];
  require(a.weight_hh, Shape{3 * H, H}, dt, "weightHh");
  require(a.weight_ih, Shape{3 * H, a.input.sizes.back()}, dt, "weightIh");
  if (a.bias_ih) require(*a.bias_ih, Shape{3 * H}, dt, "biasIh");
  if (a.bias_hh) require(*a.bias_hh, Shape{3 * H}, dt, "biasHh");
  require(a.hx, Shape{s.B, H}, dt, "hx");
  return s;
}

Shape seq_shape(const Steps& s, int64_t cols) { return s.packed ? Shape{s.N, cols} : Shape{s.T, s.B, cols}; }

void check_reserve(const Steps& s, int64_t H, DType input, const TensorView& reserve) {
  const Shape shape{s.N, gru_reserve_width(H)};
  if (reserve.sizes != shape || reserve.dtype != gru_reserve_dtype(input) || !reserve.is_contiguous()) {
    fail("reserve must be a contiguous " + shape_str(shape) + " tensor of " +
         model::dtype_name(gru_reserve_dtype(input)) + ", got " + shape_str(reserve.sizes) + " of " +
         model::dtype_name(reserve.dtype));
  }
}

}  // namespace

DType gru_reserve_dtype(DType input) { return input == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_gru_layer(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  require(output, seq_shape(s, H), a.input.dtype, "output");
  require(hy, Shape{s.B, H}, a.input.dtype, "hy");
  check_reserve(s, H, a.input.dtype, reserve);
}

void gru_layer_forward(const GruLayerArgs& a, const TensorView& output, const TensorView& hy, const TensorView& reserve) {
  check_gru_layer(a, output, hy, reserve);
  const Steps s = steps_of(a);
  visit_layer_dtype(a.input.dtype, kWhat, [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_impl<T, opmath_t<T>>(a, s, output, hy, reserve);
  });
}

void check_gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                              const GruLayerGradOutputs& out) {
  const Steps s = check_args(a);
  const int64_t H = a.weight_hh.sizes[1];
  const DType dt = a.input.dtype;
  check_reserve(s, H, dt, reserve);
  if (g.grad_output) require(*g.grad_output, seq_shape(s, H), dt, "gradOutput");
  if (g.grad_hy) require(*g.grad_hy, Shape{s.B, H}, dt, "gradHy");
  require(out.grad_input, a.input.sizes, dt, "gradInput");
  require(out.grad_weight_ih, a.weight_ih.sizes, dt, "gradWeightIh");
  require(out.grad_weight_hh, a.weight_hh.sizes, dt, "gradWeightHh");
  if (out.grad_bias_ih) require(*out.grad_bias_ih, Shape{3 * H}, dt, "gradBiasIh");
  if (out.grad_bias_hh) require(*out.grad_bias_hh, Shape{3 * H}, dt, "gradBiasHh");
  require(out.grad_hx, Shape{s.B, H}, dt, "gradHx");
}

void gru_layer_backward(const GruLayerArgs& a, const TensorView& reserve, const GruLayerGrads& g,
                        const GruLayerGradOutputs& out) {
  check_gru_layer_backward(a, reserve, g, out);
  const Steps s = steps_of(a);
  visit_layer_dtype(a.input.dtype, kWhat, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_impl<T, opmath_t<T>>(a, s, reserve, g, out);
  });
}

}  // namespace npu::kernels
