// Fused attention (attention.h): per (batch, head), blocks of query rows
// against all keys, the products on the GEMM engine in float (or double).
#include "kernels/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm.h"
#include "kernels/random/philox.h"

namespace npu::kernels {

namespace {

// Query rows per score block: the block's scores (kRowBlock x S) are the
// only O(L x S) storage, per worker.
constexpr int64_t kRowBlock = 64;

struct Dims {
  int64_t B, H, Hk, L, S, E, Ev;
};

Dims check(const AttentionParams& p) {
  const TensorView& q = p.query;
  const TensorView& k = p.key;
  const TensorView& v = p.value;
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) {
    throw KernelError("attention: query, key and value must be 4-D [batch, heads, length, head dim]");
  }
  const Dims d{q.sizes[0], q.sizes[1], k.sizes[1], q.sizes[2], k.sizes[2], q.sizes[3], v.sizes[3]};
  if (k.sizes[0] != d.B || v.sizes[0] != d.B || v.sizes[1] != d.Hk || v.sizes[2] != d.S || k.sizes[3] != d.E) {
    throw KernelError("attention: key must be [B, Hk, S, E] and value [B, Hk, S, Ev] for query [B, H, L, E]; got " +
                      shape_str(q.sizes) + ", " + shape_str(k.sizes) + ", " + shape_str(v.sizes));
  }
  if (d.Hk == 0 ? d.H != 0 : d.H % d.Hk != 0) {
    throw KernelError("attention: the query's heads (" + std::to_string(d.H) +
                      ") must be a multiple of the key/value heads (" + std::to_string(d.Hk) + ")");
  }
  if (k.dtype != q.dtype || v.dtype != q.dtype || !model::is_floating_point(q.dtype) || model::is_complex(q.dtype)) {
    throw KernelError("attention: query, key and value must share one real floating dtype");
  }
  const DType float_bias = q.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  if (p.bias && (p.bias->sizes != Shape{d.B, d.H, d.L, d.S} || (p.bias->dtype != q.dtype && p.bias->dtype != float_bias))) {
    throw KernelError("attention: the bias must be broadcast to [B, H, L, S] = " +
                      shape_str(Shape{d.B, d.H, d.L, d.S}) + " in the query's dtype or " +
                      model::dtype_name(float_bias) + ", got " + shape_str(p.bias->sizes) + " in " +
                      model::dtype_name(p.bias->dtype));
  }
  if (!(p.dropout_p >= 0.0 && p.dropout_p <= 1.0)) {
    throw KernelError("attention: dropout_p must be in [0, 1], got " + std::to_string(p.dropout_p));
  }
  return d;
}

template <class T>
const T* slice(const TensorView& t, int64_t b, int64_t h) {
  return t.ptr<const T>() + b * t.strides[0] + h * t.strides[1];
}

// rows x cols of (b, h) into dense row-major C.
template <class T, class C>
void load(const TensorView& t, int64_t b, int64_t h, int64_t rows, int64_t cols, C* dst) {
  const T* base = slice<T>(t, b, h);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = convert<C>(base[i * t.strides[2] + j * t.strides[3]]);
  }
}

template <class T, class C>
void store(const TensorView& t, int64_t b, int64_t h, int64_t rows, int64_t cols, const C* src) {
  T* base = t.ptr<T>() + b * t.strides[0] + h * t.strides[1];
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) base[i * t.strides[2] + j * t.strides[3]] = convert<T>(src[i * cols + j]);
  }
}

// c (m x n, dense row-major) = alpha * a b + beta * c, a and b strided.
template <class C>
void product(int64_t m, int64_t n, int64_t k, const C* a, int64_t a_rows, int64_t a_cols, const C* b, int64_t b_rows,
             int64_t b_cols, C* c, double alpha, double beta) {
  linalg::GemmArgs g;
  g.dtype = std::is_same_v<C, double> ? DType::Float64 : DType::Float32;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = linalg::GemmMatrix{const_cast<C*>(a), a_rows, a_cols};
  g.b = linalg::GemmMatrix{const_cast<C*>(b), b_rows, b_cols};
  g.c = linalg::GemmMatrix{c, n, 1};
  g.alpha = alpha;
  g.beta = beta;
  linalg::gemm(g);
}

// The dropout multipliers of score elements [first, first + n) (attention.h's
// counter contract: element e reads word e % 4 of block e / 4): keep_scale
// where kept, 0 where dropped.
template <class C>
void dropout_row(const AttentionParams& p, uint64_t first, int64_t n, C keep_scale, C* multiplier) {
  uint64_t loaded = ~uint64_t{0};
  PhiloxBlock block{};
  for (int64_t j = 0; j < n; ++j) {
    const uint64_t e = first + static_cast<uint64_t>(j);
    if (e / 4 != loaded) {
      loaded = e / 4;
      block = philox4x32_10(p.rng.seed, p.rng.offset / 4 + loaded);
    }
    multiplier[j] = static_cast<double>(uniform_float(block[e % 4])) >= p.dropout_p ? keep_scale : C(0);
  }
}

// The same from CANN's bit-packed keep mask.
template <class C>
void dropout_row_bits(const uint8_t* bits, uint64_t first, int64_t n, C keep_scale, C* multiplier) {
  for (int64_t j = 0; j < n; ++j) {
    const uint64_t e = first + static_cast<uint64_t>(j);
    multiplier[j] = (bits[e / 8] >> (e % 8)) & 1U ? keep_scale : C(0);
  }
}

template <class C>
void dropout_multipliers(const AttentionParams& p, uint64_t first, int64_t n, C keep_scale, C* multiplier) {
  if (p.keep_bits != nullptr) {
    dropout_row_bits(p.keep_bits, first, n, keep_scale, multiplier);
  } else {
    dropout_row(p, first, n, keep_scale, multiplier);
  }
}

// row[j] += bias(b, h, i, j), the bias in T or in its float type B.
template <class B, class C>
void add_bias_row(const TensorView& bias, int64_t b, int64_t h, int64_t i, int64_t n, C* row) {
  const B* brow = slice<B>(bias, b, h) + i * bias.strides[2];
  for (int64_t j = 0; j < n; ++j) row[j] += convert<C>(brow[j * bias.strides[3]]);
}

template <class C>
using RowArray = Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>>;

// row = exp(row - shift), exactly 0 where row was -inf (masked).
template <class C>
void exp_shifted(C* row, int64_t n, C shift) {
  RowArray<C> r(row, n);
  r = (r == -std::numeric_limits<C>::infinity()).select(C(0), (r - shift).exp());
}

// s (nb x S) = scale * q[i0 .. i0 + nb) k^T + bias, causal entries -inf.
template <class T, class C>
void scores(const AttentionParams& p, const Dims& d, int64_t b, int64_t h, int64_t i0, int64_t nb, const C* q,
            const C* k, C* s) {
  product<C>(nb, d.S, d.E, q + i0 * d.E, d.E, 1, k, 1, d.E, s, p.scale, 0.0);
  for (int64_t r = 0; r < nb; ++r) {
    const int64_t i = i0 + r;
    C* row = s + r * d.S;
    if (p.bias) {
      if (p.bias->dtype == p.query.dtype) {
        add_bias_row<T>(*p.bias, b, h, i, d.S, row);
      } else {
        add_bias_row<C>(*p.bias, b, h, i, d.S, row);
      }
    }
    if (p.causal) std::fill(row + std::min(i + 1, d.S), row + d.S, -std::numeric_limits<C>::infinity());
  }
}

template <class T>
void forward_impl(const AttentionParams& p, const Dims& d, const TensorView& out, const TensorView& logsumexp) {
  using C = opmath_t<T>;
  const int64_t group = d.H / d.Hk;
  const C keep_scale = p.dropout_p < 1.0 ? static_cast<C>(1.0 / (1.0 - p.dropout_p)) : C(0);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, d.B * d.H), [&](const tbb::blocked_range<int64_t>& range) {
    std::vector<C> q(d.L * d.E), k(d.S * d.E), v(d.S * d.Ev), o(d.L * d.Ev);
    std::vector<C> s(std::min(d.L, kRowBlock) * d.S), multiplier(p.dropout_p > 0.0 ? d.S : 0);
    for (int64_t bh = range.begin(); bh < range.end(); ++bh) {
      const int64_t b = bh / d.H;
      const int64_t h = bh % d.H;
      load<T>(p.query, b, h, d.L, d.E, q.data());
      load<T>(p.key, b, h / group, d.S, d.E, k.data());
      load<T>(p.value, b, h / group, d.S, d.Ev, v.data());
      for (int64_t i0 = 0; i0 < d.L; i0 += kRowBlock) {
        const int64_t nb = std::min(kRowBlock, d.L - i0);
        scores<T>(p, d, b, h, i0, nb, q.data(), k.data(), s.data());
        for (int64_t r = 0; r < nb; ++r) {
          C* row = s.data() + r * d.S;
          const C max = d.S == 0 ? -std::numeric_limits<C>::infinity() : RowArray<C>(row, d.S).maxCoeff();
          C lse = -std::numeric_limits<C>::infinity();
          if (max == -std::numeric_limits<C>::infinity()) {
            std::fill(row, row + d.S, C(0));  // every key masked: no attention, output 0
          } else {
            exp_shifted(row, d.S, max);
            const C sum = RowArray<C>(row, d.S).sum();
            RowArray<C>(row, d.S) *= C(1) / sum;
            lse = max + std::log(sum);
          }
          const int64_t i = i0 + r;
          if (p.dropout_p > 0.0) {
            dropout_multipliers(p, static_cast<uint64_t>((bh * d.L + i) * d.S), d.S, keep_scale, multiplier.data());
            RowArray<C>(row, d.S) *= RowArray<C>(multiplier.data(), d.S);
          }
          logsumexp.ptr<C>()[b * logsumexp.strides[0] + h * logsumexp.strides[1] + i * logsumexp.strides[2]] = lse;
        }
        product<C>(nb, d.Ev, d.S, s.data(), d.S, 1, v.data(), d.Ev, 1, o.data() + i0 * d.Ev, 1.0, 0.0);
      }
      store<T>(out, b, h, d.L, d.Ev, o.data());
    }
  });
}

template <class T>
void backward_impl(const AttentionParams& p, const Dims& d, const TensorView& grad_out, const TensorView& out,
                   const TensorView& logsumexp, const TensorView& grad_query, const TensorView& grad_key,
                   const TensorView& grad_value, const std::optional<TensorView>& grad_bias) {
  using C = opmath_t<T>;
  const int64_t group = d.H / d.Hk;
  const bool dropout = p.dropout_p > 0.0;
  const C keep_scale = p.dropout_p < 1.0 ? static_cast<C>(1.0 / (1.0 - p.dropout_p)) : C(0);
  const int64_t block = std::min(d.L, kRowBlock);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, d.B * d.Hk), [&](const tbb::blocked_range<int64_t>& range) {
    std::vector<C> k(d.S * d.E), v(d.S * d.Ev), dk(d.S * d.E), dv(d.S * d.Ev);
    std::vector<C> q(d.L * d.E), dq(d.L * d.E), dout(d.L * d.Ev), o(d.L * d.Ev), lse(d.L), di(d.L);
    std::vector<C> s(block * d.S), dp(block * d.S), pd(dropout ? block * d.S : 0);
    for (int64_t bhk = range.begin(); bhk < range.end(); ++bhk) {
      const int64_t b = bhk / d.Hk;
      const int64_t hk = bhk % d.Hk;
      load<T>(p.key, b, hk, d.S, d.E, k.data());
      load<T>(p.value, b, hk, d.S, d.Ev, v.data());
      std::fill(dk.begin(), dk.end(), C(0));
      std::fill(dv.begin(), dv.end(), C(0));
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        load<T>(p.query, b, h, d.L, d.E, q.data());
        load<T>(grad_out, b, h, d.L, d.Ev, dout.data());
        load<T>(out, b, h, d.L, d.Ev, o.data());
        for (int64_t i = 0; i < d.L; ++i) {
          lse[i] = logsumexp.ptr<C>()[b * logsumexp.strides[0] + h * logsumexp.strides[1] + i * logsumexp.strides[2]];
          // sum_j P_ij dP_ij = dO_i . O_i, dropout or not.
          C dot = 0;
          for (int64_t e = 0; e < d.Ev; ++e) dot += dout[i * d.Ev + e] * o[i * d.Ev + e];
          di[i] = dot;
        }
        for (int64_t i0 = 0; i0 < d.L; i0 += kRowBlock) {
          const int64_t nb = std::min(kRowBlock, d.L - i0);
          scores<T>(p, d, b, h, i0, nb, q.data(), k.data(), s.data());
          // dP (of the dropped-out probabilities) = dO V^T.
          product<C>(nb, d.S, d.Ev, dout.data() + i0 * d.Ev, d.Ev, 1, v.data(), 1, d.Ev, dp.data(), 1.0, 0.0);
          for (int64_t r = 0; r < nb; ++r) {
            const int64_t i = i0 + r;
            C* row = s.data() + r * d.S;
            if (lse[i] == -std::numeric_limits<C>::infinity()) {
              std::fill(row, row + d.S, C(0));
            } else {
              exp_shifted(row, d.S, lse[i]);  // P
            }
            if (dropout) {
              C* prow = pd.data() + r * d.S;
              dropout_multipliers(p, static_cast<uint64_t>(((b * d.H + h) * d.L + i) * d.S), d.S, keep_scale, prow);
              // dP of the probabilities before dropout, and the dropped-out P.
              RowArray<C>(dp.data() + r * d.S, d.S) *= RowArray<C>(prow, d.S);
              RowArray<C>(prow, d.S) *= RowArray<C>(row, d.S);
            }
          }
          // dV += (dropped-out P)^T dO.
          product<C>(d.S, d.Ev, nb, dropout ? pd.data() : s.data(), 1, d.S, dout.data() + i0 * d.Ev, d.Ev, 1,
                     dv.data(), 1.0, 1.0);
          for (int64_t r = 0; r < nb; ++r) {
            C* row = s.data() + r * d.S;
            const C* drow = dp.data() + r * d.S;
            for (int64_t j = 0; j < d.S; ++j) row[j] *= drow[j] - di[i0 + r];  // dS = P (dP - D)
            if (grad_bias) {
              C* gb = grad_bias->ptr<C>() + ((b * d.H + h) * d.L + i0 + r) * d.S;
              std::copy(row, row + d.S, gb);
            }
          }
          product<C>(nb, d.E, d.S, s.data(), d.S, 1, k.data(), d.E, 1, dq.data() + i0 * d.E, p.scale, 0.0);
          product<C>(d.S, d.E, nb, s.data(), 1, d.S, q.data() + i0 * d.E, d.E, 1, dk.data(), p.scale, 1.0);
        }
        store<T>(grad_query, b, h, d.L, d.E, dq.data());
      }
      store<T>(grad_key, b, hk, d.S, d.E, dk.data());
      store<T>(grad_value, b, hk, d.S, d.Ev, dv.data());
    }
  });
}

template <class F>
void visit_attention_dtype(DType dtype, F&& f) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) {
      f(tag);
    } else {
      throw KernelError(std::string("attention: unsupported dtype ") + model::dtype_name(dtype));
    }
  });
}

DType logsumexp_dtype(DType query) { return query == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_logsumexp(const Dims& d, const TensorView& lse, DType query) {
  if (lse.sizes != Shape{d.B, d.H, d.L} || lse.dtype != logsumexp_dtype(query)) {
    throw KernelError("attention: logsumexp must be [B, H, L] = " + shape_str(Shape{d.B, d.H, d.L}) + " in " +
                      model::dtype_name(logsumexp_dtype(query)) + ", got " + shape_str(lse.sizes) + " in " +
                      model::dtype_name(lse.dtype));
  }
}

void check_like(const TensorView& t, const TensorView& like, const char* name, const char* of) {
  if (t.sizes != like.sizes || t.dtype != like.dtype) {
    throw KernelError(std::string("attention: ") + name + " must have " + of + "'s shape " + shape_str(like.sizes) +
                      " and dtype, got " + shape_str(t.sizes));
  }
}

}  // namespace

void check_attention_forward(const AttentionParams& p, const TensorView& out, const TensorView& logsumexp) {
  const Dims d = check(p);
  check_logsumexp(d, logsumexp, p.query.dtype);
  if (out.sizes != Shape{d.B, d.H, d.L, d.Ev} || out.dtype != p.query.dtype) {
    throw KernelError("attention: out must be [B, H, L, Ev] = " + shape_str(Shape{d.B, d.H, d.L, d.Ev}) +
                      " in the query's dtype, got " + shape_str(out.sizes));
  }
}

void check_attention_backward(const AttentionParams& p, const TensorView& grad_out, const TensorView& out,
                              const TensorView& logsumexp, const TensorView& grad_query, const TensorView& grad_key,
                              const TensorView& grad_value) {
  check_attention_forward(p, out, logsumexp);
  check_like(grad_out, out, "gradOut", "out");
  check_like(grad_query, p.query, "gradQuery", "query");
  check_like(grad_key, p.key, "gradKey", "key");
  check_like(grad_value, p.value, "gradValue", "value");
}

void attention_forward(const AttentionParams& p, const TensorView& out, const TensorView& logsumexp) {
  check_attention_forward(p, out, logsumexp);
  const Dims d = check(p);
  visit_attention_dtype(p.query.dtype, [&](auto tag) {
    forward_impl<typename decltype(tag)::type>(p, d, out, logsumexp);
  });
}

void attention_backward(const AttentionParams& p, const TensorView& grad_out, const TensorView& out,
                        const TensorView& logsumexp, const TensorView& grad_query, const TensorView& grad_key,
                        const TensorView& grad_value, const std::optional<TensorView>& grad_bias) {
  check_attention_backward(p, grad_out, out, logsumexp, grad_query, grad_key, grad_value);
  const Dims d = check(p);
  if (grad_bias) {
    const Shape want{d.B, d.H, d.L, d.S};
    if (grad_bias->sizes != want || grad_bias->strides != contiguous_strides(want) ||
        grad_bias->dtype != logsumexp_dtype(p.query.dtype)) {
      throw KernelError("attention: grad_bias must be dense " + shape_str(want) + " in " +
                        model::dtype_name(logsumexp_dtype(p.query.dtype)) + ", got " + shape_str(grad_bias->sizes));
    }
  }
  visit_attention_dtype(p.query.dtype, [&](auto tag) {
    backward_impl<typename decltype(tag)::type>(p, d, grad_out, out, logsumexp, grad_query, grad_key, grad_value,
                                                grad_bias);
  });
}

}  // namespace npu::kernels
