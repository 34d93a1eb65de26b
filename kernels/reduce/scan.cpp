#include "kernels/reduce/scan.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/task_arena.h>

#include "kernels/core/bool_bytes.h"
#include "kernels/core/dims.h"
#include "kernels/core/nd_iter.h"
#include "kernels/reduce/acc_buffer.h"
#include "kernels/reduce/dtype_pairs.h"
#include "kernels/reduce/reduce_ops.h"

namespace npu::kernels {

namespace {

// Lines are every position of the dims other than the scanned one (merged
// where contiguous); each line runs `length` steps along the scanned dim.
struct ScanPlan {
  Shape line_sizes, line_in, line_out;
  int64_t lines = 1;
  int64_t length = 1, in_step = 0, out_step = 0;
};

ScanPlan make_scan_plan(const TensorView& out, const TensorView& in, int64_t dim) {
  if (out.sizes != in.sizes) {
    throw KernelError("scan output has shape " + shape_str(out.sizes) + ", expected " + shape_str(in.sizes));
  }
  ScanPlan p;
  if (in.dim() == 0) return p;
  p.length = in.sizes[dim];
  p.in_step = in.strides[dim];
  p.out_step = out.strides[dim];
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == dim || in.sizes[d] == 1) continue;
    const int64_t n = in.sizes[d];
    if (!p.line_sizes.empty() && p.line_in.back() == in.strides[d] * n && p.line_out.back() == out.strides[d] * n) {
      p.line_sizes.back() *= n;
      p.line_in.back() = in.strides[d];
      p.line_out.back() = out.strides[d];
    } else {
      p.line_sizes.push_back(n);
      p.line_in.push_back(in.strides[d]);
      p.line_out.push_back(out.strides[d]);
    }
    p.lines *= n;
  }
  return p;
}

// A scan's typed part; the strategies below are compiled once.
class ScanKernel {
 public:
  virtual ~ScanKernel() = default;
  virtual std::size_t acc_size() const = 0;
  virtual void init(void* acc, int64_t n) const = 0;  // acc[0..n) = identity
  // Steps [rb, re) of the line at (ib, ob), continuing from *acc; writes out.
  virtual void scan(void* acc, int64_t ib, int64_t ob, int64_t rb, int64_t re) const = 0;
  // *acc folds steps [rb, re) of the line at ib without writing.
  virtual void total(void* acc, int64_t ib, int64_t rb, int64_t re) const = 0;
  // *a = combine(*a, *b)
  virtual void combine(void* a, const void* b) const = 0;
  // One step of n adjacent lines (the column strategy): acc[j] += in[ib + j], out[ob + j] = acc[j].
  virtual void step_row(void* acc, int64_t ib, int64_t ob, int64_t n) const = 0;
};

// The step of a scan.
enum class ScanOp { Sum, Prod, LogAddExp };

template <class In, class Out, ScanOp Op>
class TypedScan final : public ScanKernel {
 public:
  using Acc = sum_acc_t<In>;
  TypedScan(const ScanPlan& p, const In* in, Out* out) : p_(p), in_(in), out_(out) {}

  std::size_t acc_size() const override { return sizeof(Acc); }
  void init(void* acc, int64_t n) const override { std::fill_n(static_cast<Acc*>(acc), n, identity()); }
  void scan(void* acc, int64_t ib, int64_t ob, int64_t rb, int64_t re) const override {
    Acc a = *static_cast<Acc*>(acc);
    for (int64_t r = rb; r < re; ++r) {
      a = op(a, widen<Acc>(in_[ib + r * p_.in_step]));
      out_[ob + r * p_.out_step] = convert<Out>(a);
    }
    *static_cast<Acc*>(acc) = a;
  }
  void total(void* acc, int64_t ib, int64_t rb, int64_t re) const override {
    Acc a = *static_cast<Acc*>(acc);
    for (int64_t r = rb; r < re; ++r) a = op(a, widen<Acc>(in_[ib + r * p_.in_step]));
    *static_cast<Acc*>(acc) = a;
  }
  void combine(void* a, const void* b) const override {
    *static_cast<Acc*>(a) = op(*static_cast<Acc*>(a), *static_cast<const Acc*>(b));
  }
  void step_row(void* acc, int64_t ib, int64_t ob, int64_t n) const override {
    Acc* a = static_cast<Acc*>(acc);
    const In* s = in_ + ib;
    Out* d = out_ + ob;
    for (int64_t j = 0; j < n; ++j) {
      a[j] = op(a[j], widen<Acc>(s[j]));
      d[j] = convert<Out>(a[j]);
    }
  }

 private:
  static Acc identity() {
    if constexpr (Op == ScanOp::LogAddExp) return -std::numeric_limits<Acc>::infinity();
    else return Acc(Op == ScanOp::Prod ? 1 : 0);
  }
  static Acc op(const Acc& a, const Acc& b) {
    if constexpr (Op == ScanOp::Prod) {
      return pwmath::wrap_mul(a, b);  // integers wrap as PyTorch's (reduce_ops.h SumOp)
    } else if constexpr (Op == ScanOp::LogAddExp && std::is_floating_point_v<Acc>) {
      // log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities (and the
      // -inf identity) would give inf - inf = NaN there.
      if (std::isnan(a) || std::isnan(b)) return a + b;
      if (std::isinf(a) && a == b) return a;
      const Acc m = a < b ? b : a;
      return m + std::log1p(std::exp(-std::abs(a - b)));
    } else {
      return pwmath::wrap_add(a, b);  // Sum (LogAddExp is refused for non-floating dtypes before dispatch)
    }
  }

  const ScanPlan& p_;
  const In* in_;
  Out* out_;
};

class ScanEngine {
 public:
  ScanEngine(const ScanPlan& p, const ScanKernel& k) : p_(p), k_(k) {}

  void run() const {
    if (p_.lines == 0 || p_.length == 0) return;
    const int64_t workers = tbb::this_task_arena::max_concurrency();
    const bool columns = !p_.line_sizes.empty() && p_.line_in.back() == 1 && p_.line_out.back() == 1 &&
                         p_.in_step != 1;
    if (columns) {
      run_columns();
    } else if (p_.lines >= 4 * workers || p_.length < 4 * kChunk) {
      parallel_range(p_.lines, grain_for(p_.length), [&](int64_t lb, int64_t le) {
        const AccBuffer acc(k_.acc_size(), 1);
        for_lines(lb, le, [&](int64_t ib, int64_t ob) {
          k_.init(acc.at(0), 1);
          k_.scan(acc.at(0), ib, ob, 0, p_.length);
        });
      });
    } else {
      for_lines(0, p_.lines, [&](int64_t ib, int64_t ob) { scan_long_line(ib, ob); });
    }
  }

 private:
  static constexpr int64_t kChunk = 65536;
  static constexpr int64_t kBlock = 256;

  template <class F>
  void for_lines(int64_t lb, int64_t le, const F& f) const {
    const int64_t si = p_.line_in.empty() ? 0 : p_.line_in.back();
    const int64_t so = p_.line_out.empty() ? 0 : p_.line_out.back();
    for_each_run<2>(p_.line_sizes, {&p_.line_in, &p_.line_out}, lb, le,
                    [&](const std::array<int64_t, 2>& off, int64_t, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) f(off[0] + i * si, off[1] + i * so);
                    });
  }

  // Chunk totals in parallel, their exclusive prefix, then every chunk
  // rescanned in parallel from its prefix.
  void scan_long_line(int64_t ib, int64_t ob) const {
    const int64_t chunks = (p_.length + kChunk - 1) / kChunk;
    const AccBuffer carry(k_.acc_size(), chunks + 1);
    k_.init(carry.at(0), chunks + 1);
    parallel_range(chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) k_.total(carry.at(c + 1), ib, c * kChunk, std::min(p_.length, (c + 1) * kChunk));
    });
    for (int64_t c = 1; c <= chunks; ++c) k_.combine(carry.at(c), carry.at(c - 1));  // carry[c] = prefix of chunks < c
    parallel_range(chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) k_.scan(carry.at(c), ib, ob, c * kChunk, std::min(p_.length, (c + 1) * kChunk));
    });
  }

  // The scanned dim is outer to a contiguous line dim: advance a block of
  // adjacent lines together, step by step, with sequential loads and stores.
  void run_columns() const {
    const int64_t width = p_.line_sizes.back();
    const Shape outer(p_.line_sizes.begin(), p_.line_sizes.end() - 1);
    const Shape outer_in(p_.line_in.begin(), p_.line_in.end() - 1);
    const Shape outer_out(p_.line_out.begin(), p_.line_out.end() - 1);
    const int64_t blocks = (width + kBlock - 1) / kBlock;
    parallel_range((p_.lines / width) * blocks, grain_for(p_.length * kBlock), [&](int64_t tb, int64_t te) {
      const AccBuffer acc(k_.acc_size(), kBlock);
      for (int64_t t = tb; t < te; ++t) {
        const int64_t g = t / blocks, j0 = (t % blocks) * kBlock, w = std::min(kBlock, width - j0);
        const int64_t ib = offset_of(g, outer, outer_in) + j0, ob = offset_of(g, outer, outer_out) + j0;
        k_.init(acc.at(0), w);
        for (int64_t r = 0; r < p_.length; ++r) k_.step_row(acc.at(0), ib + r * p_.in_step, ob + r * p_.out_step, w);
      }
    });
  }

  const ScanPlan& p_;
  const ScanKernel& k_;
};

template <ScanOp Op>
void scan_dispatch(const TensorView& out, const TensorView& in, int64_t dim) {
  const int64_t d = wrap_dim(dim, in.dim());
  std::optional<BoolBytes> bools;  // bool input: "byte != 0" (bool_bytes.h)
  visit_accumulating(normalized_bools(in, bools), out.dtype, [&](const TensorView& src, auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const ScanPlan plan = make_scan_plan(out, src, d);
    ScanEngine(plan, TypedScan<In, Out, Op>(plan, static_cast<const In*>(src.data), out.ptr<Out>())).run();
  });
}

// One line of cum_extreme: `length` steps from the given offsets.
template <class T, bool IsMax>
void cum_extreme_line(const T* in, T* values, int64_t* indices, int64_t length, int64_t si, int64_t sv, int64_t sx) {
  T best = in[0];
  int64_t at = 0;
  for (int64_t r = 0; r < length; ++r) {
    const T x = in[r * si];
    bool take = r == 0;
    if constexpr (is_floating_v<T>) {
      const double xd = static_cast<double>(x);
      const double bd = static_cast<double>(best);
      take = take || std::isnan(xd) || (!std::isnan(bd) && (IsMax ? xd >= bd : xd <= bd));
    } else {
      take = take || (IsMax ? x >= best : x <= best);
    }
    if (take) {
      best = x;
      at = r;
    }
    values[r * sv] = best;
    indices[r * sx] = at;
  }
}

}  // namespace

void cum_extreme(bool is_max, const TensorView& values, const TensorView& indices, const TensorView& in, int64_t dim) {
  if (values.sizes != in.sizes || indices.sizes != in.sizes || values.dtype != in.dtype ||
      indices.dtype != DType::Int64 || model::is_complex(in.dtype)) {
    throw KernelError("cummax/cummin: values must have self's shape and dtype, indices its shape and int64; got " +
                      shape_str(values.sizes) + " " + model::dtype_name(values.dtype) + ", " +
                      shape_str(indices.sizes) + " " + model::dtype_name(indices.dtype) + " for self " +
                      shape_str(in.sizes) + " " + model::dtype_name(in.dtype));
  }
  if (in.numel() == 0) return;
  if (in.dim() == 0) {
    visit_dtype(in.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      *values.ptr<T>() = *static_cast<const T*>(in.data);
    });
    *indices.ptr<int64_t>() = 0;
    return;
  }
  const int64_t d = wrap_dim(dim, in.dim());
  const int64_t length = in.sizes[d];
  // Lines: every position of the other dims, unravelled one by one (three
  // tensors with their own strides: no merging of dims).
  Shape outer;
  std::vector<std::array<int64_t, 3>> outer_strides;
  for (int64_t k = 0; k < in.dim(); ++k) {
    if (k == d) continue;
    outer.push_back(in.sizes[k]);
    outer_strides.push_back({in.strides[k], values.strides[k], indices.strides[k]});
  }
  int64_t lines = 1;
  for (const int64_t n : outer) lines *= n;
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) {
      const T* src = static_cast<const T*>(in.data);
      T* dst = values.ptr<T>();
      int64_t* idx = indices.ptr<int64_t>();
      parallel_range(lines, grain_for(length), [&](int64_t lb, int64_t le) {
        for (int64_t l = lb; l < le; ++l) {
          int64_t rest = l, oi = 0, ov = 0, ox = 0;
          for (int64_t k = static_cast<int64_t>(outer.size()) - 1; k >= 0; --k) {
            const int64_t pos = rest % outer[k];
            rest /= outer[k];
            oi += pos * outer_strides[k][0];
            ov += pos * outer_strides[k][1];
            ox += pos * outer_strides[k][2];
          }
          if (is_max) {
            cum_extreme_line<T, true>(src + oi, dst + ov, idx + ox, length, in.strides[d], values.strides[d],
                                      indices.strides[d]);
          } else {
            cum_extreme_line<T, false>(src + oi, dst + ov, idx + ox, length, in.strides[d], values.strides[d],
                                       indices.strides[d]);
          }
        }
      });
    }
  });
}

void cumsum(const TensorView& out, const TensorView& in, int64_t dim) { scan_dispatch<ScanOp::Sum>(out, in, dim); }

void cumprod(const TensorView& out, const TensorView& in, int64_t dim) { scan_dispatch<ScanOp::Prod>(out, in, dim); }

void logcumsumexp(const TensorView& out, const TensorView& in, int64_t dim) {
  if (!model::is_floating_point(in.dtype) || out.dtype != in.dtype) {
    throw KernelError(std::string("logcumsumexp: expected floating self and out of its dtype, got ") +
                      model::dtype_name(in.dtype) + " and " + model::dtype_name(out.dtype));
  }
  scan_dispatch<ScanOp::LogAddExp>(out, in, dim);
}

}  // namespace npu::kernels
