// One LSTM layer/direction over a sequence (lstm_layer.h): the products on
// the GEMM engine in the compute type, the gates' pointwise math on Eigen's
// vectorized logistic/tanh (this file is built with the Cube kernels' ISA
// flags, CMakeLists.txt, as the layer is matrix work).
#include "kernels/rnn/lstm_layer.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/reused_buffer.h"

namespace npu::kernels {

namespace {

using linalg::GemmMatrix;

// Which rows of the sequence each step owns (lstm_layer.h: dense or packed).
struct Steps {
  int64_t T = 0;  // steps
  int64_t B = 0;  // batch (the first step's rows)
  int64_t N = 0;  // rows over all steps
  bool packed = false;
  std::vector<int64_t> batch;   // rows of step t
  std::vector<int64_t> offset;  // first row of step t
};

[[noreturn]] void fail(const std::string& what) { throw KernelError("lstm layer: " + what); }

Steps steps_of(const LstmLayerArgs& a) {
  Steps s;
  const TensorView& x = a.input;
  if (a.batch_sizes.empty()) {
    if (x.dim() != 3) fail("a dense input must be 3-D [steps, batch, features], got " + shape_str(x.sizes));
    s.T = x.sizes[0];
    s.B = x.sizes[1];
    s.batch.assign(static_cast<std::size_t>(s.T), s.B);
  } else {
    if (x.dim() != 2) fail("a packed input must be 2-D [rows, features], got " + shape_str(x.sizes));
    s.packed = true;
    s.T = static_cast<int64_t>(a.batch_sizes.size());
    s.B = a.batch_sizes[0];
    s.batch = a.batch_sizes;
    for (std::size_t t = 0; t < s.batch.size(); ++t) {
      if (s.batch[t] <= 0 || (t > 0 && s.batch[t] > s.batch[t - 1])) {
        fail("batchSizes must be positive and non-increasing (PyTorch's packed order)");
      }
    }
  }
  s.offset.resize(s.batch.size());
  for (std::size_t t = 0; t < s.batch.size(); ++t) {
    s.offset[t] = s.N;
    s.N += s.batch[t];
  }
  if (s.packed && s.N != x.sizes[0]) {
    fail("the packed input has " + std::to_string(x.sizes[0]) + " rows but batchSizes sum to " +
         std::to_string(s.N));
  }
  return s;
}

// Row b of step t of a sequence tensor (dense [T, B, X] or packed [N, X]).
template <class T>
struct SeqRows {
  T* data;
  int64_t t_stride;
  int64_t b_stride;
  int64_t col;
  const Steps* steps;
  T* row(int64_t t, int64_t b) const {
    return data + (steps->packed ? (steps->offset[t] + b) * b_stride : t * t_stride + b * b_stride);
  }
};

template <class T>
SeqRows<T> seq_rows(const TensorView& v, const Steps& s) {
  if (s.packed) return {v.ptr<T>(), 0, v.strides[0], v.strides[1], &s};
  return {v.ptr<T>(), v.strides[0], v.strides[1], v.strides[2], &s};
}

// Scratch of n values of C, uninitialized: blocks of this size freshly
// allocated come back from the OS zero-filled page by page on every launch
// (linalg/reused_buffer.h), so they are reused per thread.
template <class C>
class Scratch {
 public:
  explicit Scratch(int64_t n) : block_(static_cast<std::size_t>(std::max<int64_t>(n, 1)) * sizeof(C)) {}
  C* data() const { return block_.as<C>(); }

 private:
  linalg::ReusedBuffer block_;
};

// A GEMM operand in the compute type C: the tensor itself when it has that
// type and is one strided matrix, else a dense converted copy.
template <class C>
struct Operand {
  std::optional<Scratch<C>> owned;
  GemmMatrix m;
};

// The sequence as an [N, cols] matrix, row offset[t] + b holding (t, b).
template <class T, class C>
Operand<C> seq_matrix(const TensorView& v, const Steps& s, int64_t cols) {
  Operand<C> o;
  if constexpr (std::is_same_v<T, C>) {
    if (s.packed) {
      o.m = GemmMatrix{v.data, v.strides[0], v.strides[1]};
      return o;
    }
    if (s.T <= 1 || v.strides[0] == s.B * v.strides[1]) {
      o.m = GemmMatrix{v.data, v.strides[1], v.strides[2]};
      return o;
    }
  }
  o.owned.emplace(s.N * cols);
  const SeqRows<const T> rows = seq_rows<const T>(v, s);
  for (int64_t t = 0; t < s.T; ++t) {
    for (int64_t b = 0; b < s.batch[t]; ++b) {
      const T* src = rows.row(t, b);
      C* dst = o.owned->data() + (s.offset[t] + b) * cols;
      for (int64_t j = 0; j < cols; ++j) dst[j] = convert<C>(src[j * rows.col]);
    }
  }
  o.m = GemmMatrix{o.owned->data(), cols, 1};
  return o;
}

// A 2-D tensor (or its transpose) as a matrix of C.
template <class T, class C>
Operand<C> matrix(const TensorView& v, bool transpose) {
  Operand<C> o;
  void* data = v.data;
  int64_t rs = v.strides[0];
  int64_t cs = v.strides[1];
  if constexpr (!std::is_same_v<T, C>) {
    const int64_t rows = v.sizes[0], cols = v.sizes[1];
    C* dst = o.owned.emplace(rows * cols).data();
    const T* src = v.ptr<const T>();
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = convert<C>(src[i * rs + j * cs]);
    }
    data = dst;
    rs = cols;
    cs = 1;
  }
  o.m = transpose ? GemmMatrix{data, cs, rs} : GemmMatrix{data, rs, cs};
  return o;
}

template <class C>
GemmMatrix dense(const C* data, int64_t row_stride) {
  return GemmMatrix{const_cast<C*>(data), row_stride, 1};
}

// c = a b + beta c, all of C (m x k times k x n).
template <class C>
void product(int64_t m, int64_t n, int64_t k, const GemmMatrix& a, const GemmMatrix& b, const GemmMatrix& c,
             double beta) {
  linalg::GemmArgs g;
  g.dtype = std::is_same_v<C, double> ? DType::Float64 : DType::Float32;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.b = b;
  g.c = c;
  g.beta = beta;
  linalg::gemm(g);
}

// [rows, cols] of a 2-D (or, cols == size, 1-D) tensor into dense C, and back.
template <class T, class C>
void load(const TensorView& v, int64_t rows, int64_t cols, C* dst) {
  const T* src = v.ptr<const T>();
  const int64_t rs = v.dim() == 2 ? v.strides[0] : 0;
  const int64_t cs = v.strides[v.dim() - 1];
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = convert<C>(src[i * rs + j * cs]);
  }
}

template <class T, class C>
void store(const TensorView& v, int64_t rows, int64_t cols, const C* src) {
  T* dst = v.ptr<T>();
  const int64_t rs = v.dim() == 2 ? v.strides[0] : 0;
  const int64_t cs = v.strides[v.dim() - 1];
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * rs + j * cs] = convert<T>(src[i * cols + j]);
  }
}

// out[b, j] (+)= sum_k h[b, k] w[k, j] for b < n, j in [j_begin, j_end): the
// recurrent product of one step, n (the batch) small. The GEMM engine would
// pack w again at every step and leaves most of its row panel empty for so
// few rows; here w is packed once per launch (dense, row stride ldw) and
// each block of rows x kCols outputs is accumulated in registers over k.
constexpr int64_t kCols = 32;

template <class C, int Rows>
void recurrent_rows(int64_t k_size, int64_t j_begin, int64_t j_end, const C* h, int64_t ldh, const C* w, int64_t ldw,
                    C* out, int64_t ldo, bool accumulate) {
  int64_t j0 = j_begin;
  for (; j0 + kCols <= j_end; j0 += kCols) {
    C acc[Rows][kCols] = {};
    for (int64_t k = 0; k < k_size; ++k) {
      const C* wk = w + k * ldw + j0;
      for (int b = 0; b < Rows; ++b) {
        const C hv = h[b * ldh + k];
        for (int j = 0; j < kCols; ++j) acc[b][j] += hv * wk[j];
      }
    }
    for (int b = 0; b < Rows; ++b) {
      C* o = out + b * ldo + j0;
      for (int j = 0; j < kCols; ++j) o[j] = accumulate ? o[j] + acc[b][j] : acc[b][j];
    }
  }
  for (; j0 < j_end; ++j0) {
    for (int b = 0; b < Rows; ++b) {
      C sum = 0;
      for (int64_t k = 0; k < k_size; ++k) sum += h[b * ldh + k] * w[k * ldw + j0];
      C& o = out[b * ldo + j0];
      o = accumulate ? o + sum : sum;
    }
  }
}

// Products of at least this many multiply-adds split their columns over
// the cores (a step of a 128-unit LSTM with batch 8 is 512K).
constexpr int64_t kParallelMacs = int64_t{1} << 17;

template <class C>
void recurrent_product(int64_t n, int64_t k_size, int64_t cols, const C* h, int64_t ldh, const C* w, C* out,
                       int64_t ldo, bool accumulate) {
  const auto columns = [&](int64_t j_begin, int64_t j_end) {
    int64_t b = 0;
    for (; b + 4 <= n; b += 4) {
      recurrent_rows<C, 4>(k_size, j_begin, j_end, h + b * ldh, ldh, w, cols, out + b * ldo, ldo, accumulate);
    }
    for (; b < n; ++b) {
      recurrent_rows<C, 1>(k_size, j_begin, j_end, h + b * ldh, ldh, w, cols, out + b * ldo, ldo, accumulate);
    }
  };
  const int64_t blocks = (cols + kCols - 1) / kCols;
  if (n * k_size * cols < kParallelMacs || blocks < 2) {
    columns(0, cols);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, blocks, std::max<int64_t>(1, blocks / 2)),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      columns(r.begin() * kCols, std::min(cols, r.end() * kCols));
                    });
}

// A 2-D tensor (or its transpose) as a dense row-major matrix of C.
template <class T, class C>
Scratch<C> dense_copy(const TensorView& v, bool transpose) {
  const int64_t rows = v.sizes[0], cols = v.sizes[1];
  Scratch<C> copy(rows * cols);
  C* out = copy.data();
  const T* src = v.ptr<const T>();
  if (!transpose) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = convert<C>(src[i * v.strides[0] + j * v.strides[1]]);
    }
    return copy;
  }
  // In tiles, writing contiguous runs: stores at a large power-of-two stride
  // (a [512, 128] weight's 2 KB) all fall into two L1 sets and evict each other.
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j) {
        for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i) {
          out[j * rows + i] = convert<C>(src[i * v.strides[0] + j * v.strides[1]]);
        }
      }
    }
  }
  return copy;
}

template <class C>
using Vec = Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>>;
template <class C>
using ConstVec = Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>>;

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

template <class F>
void visit_lstm_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    default:
      fail(std::string("input must be float32, float64, float16 or bfloat16, got ") + model::dtype_name(dtype));
  }
}

void require(const TensorView& v, const Shape& shape, DType dtype, const char* name) {
  if (v.sizes != shape) fail(std::string(name) + " must be " + shape_str(shape) + ", got " + shape_str(v.sizes));
  if (v.dtype != dtype) {
    fail(std::string(name) + " must have the input's dtype " + model::dtype_name(dtype) + ", got " +
         model::dtype_name(v.dtype));
  }
}

// Checks the forward's arguments; returns the layout and the hidden size.
Steps check_args(const LstmLayerArgs& a) {
  const Steps s = steps_of(a);
  const DType dt = a.input.dtype;
  visit_lstm_dtype(dt, [](auto) {});
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
  visit_lstm_dtype(a.input.dtype, [&](auto tag) {
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
  visit_lstm_dtype(a.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_impl<T, opmath_t<T>>(a, s, reserve, g, out);
  });
}

}  // namespace npu::kernels
