// What the recurrent layer kernels (lstm_layer.cpp, gru_layer.cpp) share:
// the sequence layout (dense or packed steps), dense compute-type copies of
// operands, the GEMM calls, and the small per-step recurrent product.
// Internal to kernels/rnn/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/tensor_view.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/reused_buffer.h"

namespace npu::kernels::rnn_layer {

using linalg::GemmMatrix;

// The dtypes the layer kernels take: float32/float64 natively, float16 and
// bfloat16 computed in float32. `prefix` names the layer in the error.
template <class F>
void visit_layer_dtype(DType dtype, const std::string& prefix, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    default:
      throw KernelError(prefix + "input must be float32, float64, float16 or bfloat16, got " +
                        model::dtype_name(dtype));
  }
}

// Throws unless the operand `name` has `shape` and the input's `dtype`.
inline void require_operand(const TensorView& v, const Shape& shape, DType dtype, const char* name,
                            const std::string& prefix) {
  if (v.sizes != shape) {
    throw KernelError(prefix + name + " must be " + shape_str(shape) + ", got " + shape_str(v.sizes));
  }
  if (v.dtype != dtype) {
    throw KernelError(prefix + name + " must have the input's dtype " + model::dtype_name(dtype) + ", got " +
                      model::dtype_name(v.dtype));
  }
}

// Which rows of the sequence each step owns (lstm_layer.h, gru_layer.h: dense or packed).
struct Steps {
  int64_t T = 0;  // steps
  int64_t B = 0;  // batch (the first step's rows)
  int64_t N = 0;  // rows over all steps
  bool packed = false;
  std::vector<int64_t> batch;   // rows of step t
  std::vector<int64_t> offset;  // first row of step t
};

// `prefix` names the layer in error messages ("lstm layer: ").
inline Steps steps_of(const TensorView& x, const std::vector<int64_t>& batch_sizes, const std::string& prefix) {
  const auto fail = [&](const std::string& what) { throw KernelError(prefix + what); };
  Steps s;
  if (batch_sizes.empty()) {
    if (x.dim() != 3) fail("a dense input must be 3-D [steps, batch, features], got " + shape_str(x.sizes));
    s.T = x.sizes[0];
    s.B = x.sizes[1];
    s.batch.assign(static_cast<std::size_t>(s.T), s.B);
  } else {
    if (x.dim() != 2) fail("a packed input must be 2-D [rows, features], got " + shape_str(x.sizes));
    s.packed = true;
    s.T = static_cast<int64_t>(batch_sizes.size());
    s.B = batch_sizes[0];
    s.batch = batch_sizes;
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

// Every step's input projection x W_ih^T at once, into the first G columns
// of each reserve row (row stride W), before the recurrence.
template <class T, class C, class Args>
void input_projection(const Args& a, const Steps& s, C* res, int64_t W) {
  const int64_t G = a.weight_ih.sizes[0], I = a.input.sizes.back();
  const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
  const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/true);
  product<C>(s.N, G, I, x.m, wih.m, dense(res, W), 0.0);
}

// The compute dtype of a layer's reserve buffer: Float64 for Float64 inputs, else Float32.
inline DType reserve_dtype(DType input) { return input == DType::Float64 ? DType::Float64 : DType::Float32; }

// Runs f(TypeTag<T>{}, steps) for the layer's input dtype T and sequence layout.
template <class Args, class F>
void for_layer_dtype(const Args& a, const std::string& prefix, F&& f) {
  const Steps s = steps_of(a.input, a.batch_sizes, prefix);
  visit_layer_dtype(a.input.dtype, prefix, [&](auto tag) { f(tag, s); });
}

// A sequence tensor's shape with `cols` features (dense [T, B, cols] or packed [N, cols]).
inline Shape seq_shape(const Steps& s, int64_t cols) { return s.packed ? Shape{s.N, cols} : Shape{s.T, s.B, cols}; }

// Checks what every layer's arguments share (Args: LstmLayerArgs, GruLayerArgs):
// the dtype, weights [gates * H, I] and [gates * H, H], biases, hx [B, H].
// Returns the layout; the hidden size is weight_hh.sizes[1].
template <class Args>
Steps check_layer_args(const Args& a, int64_t gates, const std::string& prefix) {
  const Steps s = steps_of(a.input, a.batch_sizes, prefix);
  const DType dt = a.input.dtype;
  visit_layer_dtype(dt, prefix, [](auto) {});
  if (a.weight_hh.dim() != 2 || a.weight_hh.sizes[0] != gates * a.weight_hh.sizes[1]) {
    throw KernelError(prefix + "weightHh must be [" + std::to_string(gates) + " * hidden, hidden], got " +
                      shape_str(a.weight_hh.sizes));
  }
  const int64_t G = a.weight_hh.sizes[0], H = a.weight_hh.sizes[1];
  require_operand(a.weight_hh, Shape{G, H}, dt, "weightHh", prefix);
  require_operand(a.weight_ih, Shape{G, a.input.sizes.back()}, dt, "weightIh", prefix);
  if (a.bias_ih) require_operand(*a.bias_ih, Shape{G}, dt, "biasIh", prefix);
  if (a.bias_hh) require_operand(*a.bias_hh, Shape{G}, dt, "biasHh", prefix);
  require_operand(a.hx, Shape{s.B, H}, dt, "hx", prefix);
  return s;
}

inline void check_reserve(const Steps& s, int64_t width, DType input, const TensorView& reserve,
                          const std::string& prefix) {
  const Shape shape{s.N, width};
  if (reserve.sizes != shape || reserve.dtype != reserve_dtype(input) || !reserve.is_contiguous()) {
    throw KernelError(prefix + "reserve must be a contiguous " + shape_str(shape) + " tensor of " +
                      model::dtype_name(reserve_dtype(input)) + ", got " + shape_str(reserve.sizes) + " of " +
                      model::dtype_name(reserve.dtype));
  }
}

// Checks the backward's gradients every layer shares (after check_layer_args).
template <class Args, class Grads, class Outs>
void check_layer_grads(const Args& a, const Steps& s, const Grads& g, const Outs& out, const std::string& prefix) {
  const int64_t G = a.weight_hh.sizes[0], H = a.weight_hh.sizes[1];
  const DType dt = a.input.dtype;
  if (g.grad_output) require_operand(*g.grad_output, seq_shape(s, H), dt, "gradOutput", prefix);
  if (g.grad_hy) require_operand(*g.grad_hy, Shape{s.B, H}, dt, "gradHy", prefix);
  require_operand(out.grad_input, a.input.sizes, dt, "gradInput", prefix);
  require_operand(out.grad_weight_ih, a.weight_ih.sizes, dt, "gradWeightIh", prefix);
  require_operand(out.grad_weight_hh, a.weight_hh.sizes, dt, "gradWeightHh", prefix);
  if (out.grad_bias_ih) require_operand(*out.grad_bias_ih, Shape{G}, dt, "gradBiasIh", prefix);
  if (out.grad_bias_hh) require_operand(*out.grad_bias_hh, Shape{G}, dt, "gradBiasHh", prefix);
  require_operand(out.grad_hx, Shape{s.B, H}, dt, "gradHx", prefix);
}

// dst = d^T rhs over all N rows of the sequence: d [N, G] dense, rhs [N, cols].
template <class T, class C>
void weight_grad(const Steps& s, const C* d, int64_t G, const GemmMatrix& rhs, int64_t cols, const TensorView& dst) {
  const GemmMatrix d_t{const_cast<C*>(d), 1, G};  // [G, N]
  if constexpr (std::is_same_v<T, C>) {
    product<C>(G, cols, s.N, d_t, rhs, GemmMatrix{dst.data, dst.strides[0], dst.strides[1]}, 0.0);
  } else {
    const Scratch<C> buf(G * cols);
    product<C>(G, cols, s.N, d_t, rhs, dense(buf.data(), cols), 0.0);
    store<T, C>(dst, G, cols, buf.data());
  }
}

// The column sums of d [N, G] into the bias gradient dst, when wanted.
template <class T, class C>
void bias_grad(const Steps& s, const C* d, int64_t G, const std::optional<TensorView>& dst) {
  if (!dst) return;
  using RowMajor = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Matrix<C, 1, Eigen::Dynamic> db = Eigen::Map<const RowMajor>(d, s.N, G).colwise().sum();
  store<T, C>(*dst, 1, G, db.data());
}

// What a layer's backward does after its recurrence: from every row's
// gradients of the input-side gate sums d_in and hidden-side ones d_hid
// ([N, G] each; the same buffer where they do not differ) and the hidden
// state each row's step started from (hprev [N, H]), the gradients of the
// input, the weights and the biases.
template <class T, class C, class Args, class Outs>
void parameter_grads(const Args& a, const Steps& s, const C* d_in, const C* d_hid, const C* hprev, const Outs& out) {
  const int64_t G = a.weight_hh.sizes[0], H = a.weight_hh.sizes[1];
  const int64_t I = a.input.sizes.back();
  {
    // grad_input = d_in W_ih, row by row into the sequence's layout
    const Operand<C> wih = matrix<T, C>(a.weight_ih, /*transpose=*/false);
    const Scratch<C> dx(s.N * I);
    product<C>(s.N, I, G, dense(d_in, G), wih.m, dense(dx.data(), I), 0.0);
    const SeqRows<T> gx = seq_rows<T>(out.grad_input, s);
    for (int64_t t = 0; t < s.T; ++t) {
      for (int64_t b = 0; b < s.batch[t]; ++b) {
        T* dst = gx.row(t, b);
        const C* src = dx.data() + (s.offset[t] + b) * I;
        for (int64_t j = 0; j < I; ++j) dst[j * gx.col] = convert<T>(src[j]);
      }
    }
  }
  {
    const Operand<C> x = seq_matrix<T, C>(a.input, s, I);
    weight_grad<T, C>(s, d_in, G, x.m, I, out.grad_weight_ih);
  }
  weight_grad<T, C>(s, d_hid, G, dense(hprev, H), H, out.grad_weight_hh);
  bias_grad<T, C>(s, d_in, G, out.grad_bias_ih);
  bias_grad<T, C>(s, d_hid, G, out.grad_bias_hh);
}

template <class C>
using Vec = Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>>;
template <class C>
using ConstVec = Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>>;

// sigmoid(x) = (1 + tanh(x / 2)) / 2: Eigen vectorizes tanh; its logistic()
// is a scalar exp per element (most of a step's time).
template <class E>
auto sigmoid(const E& x) {
  using C = typename E::Scalar;
  return (x * C(0.5)).tanh() * C(0.5) + C(0.5);
}

// [rows, cols] of v as dense C (load), or zeros where v is absent.
template <class T, class C>
std::vector<C> loaded(const std::optional<TensorView>& v, int64_t rows, int64_t cols) {
  std::vector<C> out(static_cast<std::size_t>(rows * cols), C(0));
  if (v) load<T, C>(*v, rows, cols, out.data());
  return out;
}

// The forward recurrence both layers share: the steps in processing order;
// step(t, n) runs step t's recurrent product for its n rows, then row(t, b)
// computes row b's gates and returns its new hidden state (H values of C),
// which goes into the output's row.
template <class T, class C, class StepFn, class RowFn>
void forward_steps(const Steps& s, bool reverse, int64_t H, const TensorView& output, StepFn&& step, RowFn&& row) {
  const SeqRows<T> out = seq_rows<T>(output, s);
  for (int64_t i = 0; i < s.T; ++i) {
    const int64_t t = reverse ? s.T - 1 - i : i;
    const int64_t n = s.batch[t];
    step(t, n);
    for (int64_t b = 0; b < n; ++b) {
      const C* h = row(t, b);
      T* y = out.row(t, b);
      for (int64_t u = 0; u < H; ++u) y[u * out.col] = convert<T>(h[u]);
    }
  }
}

// The backward recurrence (BPTT) both layers share: the steps in reverse
// processing order. Per row b of step t (sequence row `row`): the hidden
// state its step started from (h_t at column h_col of the step before's
// reserve row, else hx) is saved into hprev [N, H] for the recurrent weight's
// gradient, dh [B, H] gains grad_output's row, then row_fn(row, b, prev,
// h_prev) computes the gates' gradients (prev: the step before's reserve
// row, null where the row starts from hx and cx). After the rows, step_fn(t,
// n) carries dh back through step t's recurrent product.
template <class T, class C, class Args, class Grads, class RowFn, class StepFn>
void backward_steps(const Args& a, const Steps& s, const C* res, int64_t W, int64_t h_col, const Grads& g, C* dh,
                    C* hprev, RowFn&& row_fn, StepFn&& step_fn) {
  const int64_t H = a.weight_hh.sizes[1];
  const std::vector<C> hx = loaded<T, C>(a.hx, s.B, H);
  std::optional<SeqRows<const T>> dy;
  if (g.grad_output) dy = seq_rows<const T>(*g.grad_output, s);
  for (int64_t step = s.T - 1; step >= 0; --step) {
    const int64_t t = a.reverse ? s.T - 1 - step : step;
    const int64_t tp = a.reverse ? t + 1 : t - 1;  // the step before, in processing order
    const int64_t n = s.batch[t];
    for (int64_t b = 0; b < n; ++b) {
      const int64_t row = s.offset[t] + b;
      const bool from_prev = step > 0 && b < s.batch[tp];
      const C* prev = from_prev ? res + (s.offset[tp] + b) * W : nullptr;
      const C* h_prev = from_prev ? prev + h_col : hx.data() + b * H;
      std::copy(h_prev, h_prev + H, hprev + row * H);
      if (dy) {
        C* dhb = dh + b * H;
        const T* d = dy->row(t, b);
        for (int64_t u = 0; u < H; ++u) dhb[u] += convert<C>(d[u * dy->col]);
      }
      row_fn(row, b, prev, h_prev);
    }
    step_fn(t, n);
  }
}

}  // namespace npu::kernels::rnn_layer
