// Average pooling, sliding and adaptive, forward and backward. Sums run in
// opmath (float for reduced floats, the element type otherwise: int64 avg
// pooling divides as integers, as CPU does). Sliding windows divide by
// divisor_override, else the padded span (count_include_pad) or the count
// of input elements; adaptive windows divide by each dim's length in turn
// (sum / kd / kh / kw), which is how CPU rounds.
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

using pool::Window;
using pool::Windows;
using pool::kRowChunk;

// One window's divisors, computed once for all the channels it pools.
template <class A>
struct WindowDivisor {
  bool adaptive = false;
  A first, second, third;  // adaptive: the window's lengths (D, H, W); else `first` divides

  A apply(A sum) const { return adaptive ? sum / first / second / third : sum / first; }

  // A gradient's share of each window element, in T as CPU computes it: an
  // adaptive window's delta is rounded after each division.
  template <class T>
  T delta(T grad) const {
    if (!adaptive) return static_cast<T>(apply(static_cast<A>(grad)));
    T d = grad;
    for (const A f : {first, second, third}) d = static_cast<T>(static_cast<A>(d) / f);
    return d;
  }
};

// How a window's sum becomes its average.
struct Divisor {
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t override_value = 0;
  // CPU's 3-d adaptive average sums and divides in the element type itself
  // (float16 rounds at every step); npu does the same to match it.
  bool in_element_type = false;

  template <class A>
  WindowDivisor<A> of(const Window& wd, const Window& wh, const Window& ww) const {
    if (adaptive) {
      return {true, static_cast<A>(wd.length()), static_cast<A>(wh.length()), static_cast<A>(ww.length())};
    }
    int64_t div = override_value;
    if (div == 0) {
      div = count_include_pad ? wd.span * wh.span * ww.span : wd.length() * wh.length() * ww.length();
    }
    return {false, static_cast<A>(div), A(1), A(1)};
  }

  template <class A>
  A apply(A sum, const Window& wd, const Window& wh, const Window& ww) const {
    return of<A>(wd, wh, ww).apply(sum);
  }

  template <class T>
  T delta(T grad, const Window& wd, const Window& wh, const Window& ww) const {
    return of<opmath_t<T>>(wd, wh, ww).template delta<T>(grad);
  }
};

bool empty(const Window& wd, const Window& wh, const Window& ww) {
  return wd.length() == 0 || wh.length() == 0 || ww.length() == 0;
}

template <class T>
void avg_planes(const pool::View5& x, const pool::View5& y, const Windows& windows, const Divisor& divisor) {
  using A = opmath_t<T>;
  const int64_t yc = y.strides[1];
  // xc: x's channel stride (a constant 1 for adjacent channels).
  pool::for_each_channel_group(x, [&](int64_t n, int64_t c0, int64_t count, auto xc) {
    const T* in = x.ptr<T>() + pool::plane_offset(x, n, c0);
    T* out = y.ptr<T>() + pool::plane_offset(y, n, c0);
    std::array<A, pool::kGroup> sum;
    pool::for_each_output(windows, [&](int64_t od, int64_t oh, int64_t ow, const Window& wd, const Window& wh,
                                       const Window& ww) {
      T* dst = out + pool::spatial_offset(y, od, oh, ow);
      if (empty(wd, wh, ww)) {
        for (int64_t c = 0; c < count; ++c) dst[c * yc] = T(0);
        return;
      }
      std::fill_n(sum.begin(), count, A(0));
      pool::for_each_in_window(windows, wd, wh, ww, [&](int64_t d, int64_t h, int64_t w) {
        const T* src = in + pool::spatial_offset(x, d, h, w);
        if (divisor.in_element_type) {  // rounded to T at every step
          for (int64_t c = 0; c < count; ++c) sum[c] = static_cast<A>(static_cast<T>(sum[c] + static_cast<A>(src[c * xc])));
        } else {
          for (int64_t c = 0; c < count; ++c) sum[c] += static_cast<A>(src[c * xc]);
        }
      });
      const WindowDivisor<A> div = divisor.of<A>(wd, wh, ww);
      if (divisor.in_element_type) {
        for (int64_t c = 0; c < count; ++c) dst[c * yc] = div.delta(static_cast<T>(sum[c]));
      } else {
        for (int64_t c = 0; c < count; ++c) dst[c * yc] = static_cast<T>(div.apply(sum[c]));
      }
    });
  });
}

template <class T>
void avg_backward_planes(const pool::View5& go, const pool::View5& gi, const Windows& windows, const Divisor& divisor) {
  using A = opmath_t<T>;
  const int64_t gc = go.strides[1];
  // oc: gi's channel stride (a constant 1 for adjacent channels).
  pool::for_each_channel_group(gi, [&](int64_t n, int64_t c0, int64_t count, auto oc) {
    const T* g = go.ptr<T>() + pool::plane_offset(go, n, c0);
    T* out = gi.ptr<T>() + pool::plane_offset(gi, n, c0);
    pool::zero_channels(gi, out, count);
    std::array<A, pool::kGroup> delta;
    pool::for_each_output(windows, [&](int64_t od, int64_t oh, int64_t ow, const Window& wd, const Window& wh,
                                       const Window& ww) {
      if (empty(wd, wh, ww)) return;
      const T* g_at = g + pool::spatial_offset(go, od, oh, ow);
      const WindowDivisor<A> div = divisor.of<A>(wd, wh, ww);
      for (int64_t c = 0; c < count; ++c) delta[c] = static_cast<A>(div.delta(g_at[c * gc]));
      pool::for_each_in_window(windows, wd, wh, ww, [&](int64_t d, int64_t h, int64_t w) {
        T* target = out + pool::spatial_offset(gi, d, h, w);
        for (int64_t c = 0; c < count; ++c) target[c * oc] = static_cast<T>(static_cast<A>(target[c * oc]) + delta[c]);
      });
    });
  });
}

// ---- Planes with contiguous rows (NCHW) ------------------------------------
// avg_planes and avg_backward_planes pool such planes one per task with
// channel loops of length 1, paying a loop nest's setup per output; the
// kernels below run a plane's output rows directly. Each output's sum (and
// each input's accumulation of gradient shares) runs in the same order as
// there, so the results are the same.

// Outputs [a, a + kRowChunk) of one output row whose windows lie inside
// the input along W: one pass per window offset, vectorized along the outputs.
template <class T, int S>
void avg_interior(const T* in, int64_t in_row, const Window& depth, const Window& rows, const pool::DimWindows& ww,
                  int64_t a, const pool::Along& w, const Divisor& divisor, T* out, int64_t out_col) {
  using A = opmath_t<T>;
  constexpr int64_t n = kRowChunk;
  const int64_t s = S > 0 ? S : w.stride;
  std::array<A, kRowChunk> sum;
  sum.fill(A(0));
  for (int64_t h = rows.begin; h < rows.end; ++h) {
    for (int64_t kw = 0; kw < w.kernel; ++kw) {
      const T* src = in + h * in_row + a * s + kw - w.padding;
      for (int64_t j = 0; j < n; ++j) sum[j] += static_cast<A>(src[j * s]);
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    out[j * out_col] = static_cast<T>(divisor.apply(sum[j], depth, rows, ww.at[static_cast<std::size_t>(a + j)]));
  }
}

// One output whose window (rows x cols) may be clipped or empty.
template <class T>
T avg_one(const T* in, int64_t in_row, const Window& depth, const Window& rows, const Window& cols,
          const Divisor& divisor) {
  using A = opmath_t<T>;
  if (empty(depth, rows, cols)) return T(0);
  A sum(0);
  for (int64_t h = rows.begin; h < rows.end; ++h) {
    const T* src = in + h * in_row;
    for (int64_t w = cols.begin; w < cols.end; ++w) sum += static_cast<A>(src[w]);
  }
  return static_cast<T>(divisor.apply(sum, depth, rows, cols));
}

// along: the sliding windows' geometry along W (null: adaptive windows, all
// run one by one).
template <class T, int S>
void avg_rows(const pool::View5& x, const pool::View5& y, const Windows& windows, const Divisor& divisor,
              const pool::Along* along) {
  const int64_t width = x.sizes[4];
  const Window& depth = windows[0].at[0];
  const pool::DimWindows& wh = windows[1];
  const pool::DimWindows& ww = windows[2];
  const int64_t outs = static_cast<int64_t>(ww.at.size());
  const auto [lo, hi] = along != nullptr ? pool::interior(*along, width, outs) : std::pair<int64_t, int64_t>{0, 0};
  pool::for_each_group(x, x.sizes[3] * width, [&](int64_t n, int64_t c, int64_t) {
    const T* in = x.ptr<T>() + pool::plane_offset(x, n, c);
    for (std::size_t oh = 0; oh < wh.at.size(); ++oh) {
      const Window& rows = wh.at[oh];
      T* out = y.ptr<T>() + pool::plane_offset(y, n, c) + static_cast<int64_t>(oh) * y.strides[3];
      const auto one = [&](int64_t ow) {
        out[ow * y.strides[4]] = avg_one(in, x.strides[3], depth, rows, ww.at[static_cast<std::size_t>(ow)], divisor);
      };
      // Rows of empty windows (avg_one gives 0) have no vector passes.
      const int64_t inside_lo = rows.length() > 0 ? lo : outs, inside_hi = rows.length() > 0 ? hi : outs;
      for (int64_t ow = 0; ow < inside_lo; ++ow) one(ow);
      pool::for_each_pass(
          inside_lo, inside_hi,
          [&](int64_t a) {
            avg_interior<T, S>(in, x.strides[3], depth, rows, ww, a, *along, divisor, out + a * y.strides[4],
                               y.strides[4]);
          },
          one);
      for (int64_t ow = inside_hi; ow < outs; ++ow) one(ow);
    }
  });
}

template <class T>
void avg_backward_rows(const pool::View5& go, const pool::View5& gi, const Windows& windows, const Divisor& divisor) {
  using A = opmath_t<T>;
  const int64_t height = gi.sizes[3], width = gi.sizes[4];
  const Window& depth = windows[0].at[0];
  const pool::DimWindows& wh = windows[1];
  const pool::DimWindows& ww = windows[2];
  pool::for_each_group(gi, height * width, [&](int64_t n, int64_t c, int64_t) {
    const T* g = go.ptr<T>() + pool::plane_offset(go, n, c);
    T* out = gi.ptr<T>() + pool::plane_offset(gi, n, c);
    for (int64_t h = 0; h < height; ++h) std::fill_n(out + h * gi.strides[3], width, T(0));
    for (std::size_t oh = 0; oh < wh.at.size(); ++oh) {
      const Window& rows = wh.at[oh];
      for (std::size_t ow = 0; ow < ww.at.size(); ++ow) {
        const Window& cols = ww.at[ow];
        if (empty(depth, rows, cols)) continue;
        const T grad = g[static_cast<int64_t>(oh) * go.strides[3] + static_cast<int64_t>(ow) * go.strides[4]];
        const A delta = static_cast<A>(divisor.delta(grad, depth, rows, cols));
        for (int64_t h = rows.begin; h < rows.end; ++h) {
          T* target = out + h * gi.strides[3];
          for (int64_t w = cols.begin; w < cols.end; ++w) target[w] = static_cast<T>(static_cast<A>(target[w]) + delta);
        }
      }
    }
  });
}

template <class F>
void visit_averageable(const char* op, DType dtype, F&& f) {
  if (model::is_complex(dtype) || dtype == DType::Bool) {
    throw KernelError(std::string(op) + ": " + model::dtype_name(dtype) + " tensors are not supported");
  }
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) f(tag);
  });
}

void check_same(const char* op, const char* name, const TensorView& t, const Shape& shape, DType dtype) {
  if (t.sizes != shape || t.dtype != dtype) {
    throw KernelError(std::string(op) + ": expected " + name + " of shape " + shape_str(shape) + " and dtype " +
                      model::dtype_name(dtype) + ", got " + shape_str(t.sizes) + " " + model::dtype_name(t.dtype));
  }
}

// along: the sliding windows' geometry along W (null: adaptive windows).
// The row kernels take NCHW planes pooled over 1 or 2 dims, the general
// kernels everything else.
void forward(const char* op, const pool::View5& x, const pool::View5& y, const Windows& w, const Divisor& div,
             int64_t rank, const pool::Along* along) {
  visit_averageable(op, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (pool::row_planes(x, rank) && !div.in_element_type) {
      pool::with_stride(along != nullptr ? along->stride : 0,
                        [&](auto s) { avg_rows<T, decltype(s)::value>(x, y, w, div, along); });
    } else {
      avg_planes<T>(x, y, w, div);
    }
  });
}

void backward(const char* op, const pool::View5& go, const pool::View5& gi, const Windows& w, const Divisor& div,
              int64_t rank) {
  visit_averageable(op, gi.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (pool::row_planes(gi, rank)) {
      avg_backward_rows<T>(go, gi, w, div);
    } else {
      avg_backward_planes<T>(go, gi, w, div);
    }
  });
}

}  // namespace

void avg_pool(const PoolInput& self, const TensorView& out, const PoolParams& p, bool count_include_pad,
              int64_t divisor_override) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  check_same("avg_pool", "out", out, pooled_shape("avg_pool", self.view.sizes, p), self.view.dtype);
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank);
  const pool::Along along = pool::along_w(p);
  forward("avg_pool", x, y, pool::sliding_windows(x, y, p, pool::Kind::Avg),
          Divisor{false, count_include_pad, divisor_override}, rank, &along);
}

void avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, const PoolParams& p,
                       bool count_include_pad, int64_t divisor_override) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  check_same("avg_pool backward", "grad_output", grad_output, pooled_shape("avg_pool", grad_input.sizes, p),
             grad_input.dtype);
  const pool::View5 go = pool::as_5d(grad_output, rank), gi = pool::as_5d(grad_input, rank);
  backward("avg_pool backward", go, gi, pool::sliding_windows(gi, go, p, pool::Kind::Avg),
           Divisor{false, count_include_pad, divisor_override}, rank);
}

void adaptive_avg_pool(const PoolInput& self, const TensorView& out, int64_t rank) {
  if (out.dim() != self.view.dim()) throw KernelError("adaptive_avg_pool: out must have self's rank");
  const std::vector<int64_t> size(out.sizes.end() - rank, out.sizes.end());
  check_same("adaptive_avg_pool", "out", out, adaptive_shape("adaptive_avg_pool", self.view.sizes, size), self.view.dtype);
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank);
  forward("adaptive_avg_pool", x, y, pool::adaptive_windows(x, y), Divisor{true, true, 0, rank == 3}, rank, nullptr);
}

void adaptive_avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, int64_t rank) {
  if (grad_output.dim() != grad_input.dim()) throw KernelError("adaptive_avg_pool backward: grad_output must have grad_input's rank");
  const std::vector<int64_t> size(grad_output.sizes.end() - rank, grad_output.sizes.end());
  check_same("adaptive_avg_pool backward", "grad_output", grad_output,
             adaptive_shape("adaptive_avg_pool", grad_input.sizes, size), grad_input.dtype);
  const pool::View5 go = pool::as_5d(grad_output, rank), gi = pool::as_5d(grad_input, rank);
  backward("adaptive_avg_pool backward", go, gi, pool::adaptive_windows(gi, go), Divisor{true}, rank);
}

}  // namespace npu::kernels
