// Max pooling, sliding and adaptive, and its backward (a scatter by index).
// An index is the flat position of the maximum within its input plane
// ((d * H + h) * W + w), the first maximum unless a NaN comes: a NaN wins,
// the last one seen, as PyTorch CPU decides.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

using pool::Window;
using pool::Windows;
using pool::kRowChunk;

template <class A>
bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <class A>
A lowest() {
  if constexpr (std::numeric_limits<A>::has_infinity) {
    return -std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::lowest();
  }
}

// P holds positions while searching: 32 bits beside 32-bit values, so the
// channel loop's selects have one lane width and vectorize.
template <class T, class I, class P>
void max_planes(const pool::View5& x, const pool::View5& y, const pool::View5& ix, const Windows& windows) {
  using A = opmath_t<T>;
  const int64_t height = x.sizes[3], width = x.sizes[4];
  const int64_t yc = y.strides[1], ic = ix.strides[1];
  // xc: x's channel stride (a constant 1 for adjacent channels).
  pool::for_each_channel_group(x, [&](int64_t n, int64_t c0, int64_t count, auto xc) {
    const T* in = x.ptr<T>() + pool::plane_offset(x, n, c0);
    T* out = y.ptr<T>() + pool::plane_offset(y, n, c0);
    I* idx = ix.ptr<I>() + pool::plane_offset(ix, n, c0);
    std::array<A, pool::kGroup> best;
    std::array<P, pool::kGroup> at;
    pool::for_each_output(windows, [&](int64_t od, int64_t oh, int64_t ow, const Window& wd, const Window& wh,
                                       const Window& ww) {
      std::fill_n(best.begin(), count, lowest<A>());
      std::fill_n(at.begin(), count, static_cast<P>((wd.begin * height + wh.begin) * width + ww.begin));
      pool::for_each_in_window(windows, wd, wh, ww, [&](int64_t d, int64_t h, int64_t w) {
        const T* src = in + pool::spatial_offset(x, d, h, w);
        const P pos = static_cast<P>((d * height + h) * width + w);
        // Branch-free, so the loop along contiguous channels vectorizes.
        for (int64_t c = 0; c < count; ++c) {
          const A v = static_cast<A>(src[c * xc]);
          const bool take = v > best[c] || is_nan(v);
          best[c] = take ? v : best[c];
          at[c] = take ? pos : at[c];
        }
      });
      T* dst = out + pool::spatial_offset(y, od, oh, ow);
      I* dst_idx = idx + pool::spatial_offset(ix, od, oh, ow);
      for (int64_t c = 0; c < count; ++c) {
        dst[c * yc] = static_cast<T>(best[c]);
        dst_idx[c * ic] = static_cast<I>(at[c]);
      }
    });
  });
}

// ---- Planes with contiguous rows (NCHW) ------------------------------------
// max_planes pools such planes one per task with its channel loops of
// length 1, paying a loop nest's setup per output; the kernels below run a
// plane's output rows directly. Per output they visit the window in
// max_planes' order (rows, then columns) with its rule, so values and
// indices are the same.

// Outputs [a, a + kRowChunk) of one output row whose windows lie inside
// the input along W (no clipping): one pass per window offset, vectorized
// along the outputs. S: the stride along W when a compile-time constant (else 0).
template <class T, class I, class P, int S>
void max_interior(const T* in, int64_t in_row, const Window& rows, int64_t row_step, int64_t width, int64_t a,
                  const pool::Along& w, T* out, int64_t out_col, I* idx, int64_t idx_col) {
  using A = opmath_t<T>;
  constexpr int64_t n = kRowChunk;
  const int64_t s = S > 0 ? S : w.stride;
  std::array<A, kRowChunk> best;
  std::array<P, kRowChunk> at;
  for (int64_t j = 0; j < n; ++j) {
    best[j] = lowest<A>();
    at[j] = static_cast<P>(rows.begin * width + (a + j) * s - w.padding);
  }
  for (int64_t h = rows.begin; h < rows.end; h += row_step) {
    for (int64_t kw = 0; kw < w.kernel; ++kw) {
      const int64_t first = a * s + kw * w.dilation - w.padding;
      const T* src = in + h * in_row + first;
      const P base = static_cast<P>(h * width + first);
      // Not unrolled: fully unrolled, GCC turns the selects into branches
      // (mispredicted on random data) instead of vectorizing them.
#pragma GCC unroll 1
      for (int64_t j = 0; j < n; ++j) {
        const A v = static_cast<A>(src[j * s]);
        // `|`, not `||`: no branch, so the loop vectorizes.
        const bool take = (v > best[j]) | is_nan(v);
        best[j] = take ? v : best[j];
        at[j] = take ? static_cast<P>(base + static_cast<P>(j * s)) : at[j];
      }
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    out[j * out_col] = static_cast<T>(best[j]);
    idx[j * idx_col] = static_cast<I>(at[j]);
  }
}

// One output whose window (rows x cols) may be clipped.
template <class T, class I, class P>
void max_one(const T* in, int64_t in_row, const Window& rows, int64_t row_step, const Window& cols, int64_t col_step,
             int64_t width, T* out, I* idx) {
  using A = opmath_t<T>;
  A best = lowest<A>();
  P at = static_cast<P>(rows.begin * width + cols.begin);
  for (int64_t h = rows.begin; h < rows.end; h += row_step) {
    const T* src = in + h * in_row;
    for (int64_t w = cols.begin; w < cols.end; w += col_step) {
      const A v = static_cast<A>(src[w]);
      if (v > best || is_nan(v)) {
        best = v;
        at = static_cast<P>(h * width + w);
      }
    }
  }
  *out = static_cast<T>(best);
  *idx = static_cast<I>(at);
}

template <class T, class I, class P, int S>
void max_rows(const pool::View5& x, const pool::View5& y, const pool::View5& ix, const Windows& windows,
              const pool::Along& along) {
  const int64_t width = x.sizes[4];
  const pool::DimWindows& wh = windows[1];
  const pool::DimWindows& ww = windows[2];
  const int64_t outs = static_cast<int64_t>(ww.at.size());
  const auto [lo, hi] = pool::interior(along, width, outs);
  pool::for_each_group(x, x.sizes[3] * width, [&](int64_t n, int64_t c, int64_t) {
    const T* in = x.ptr<T>() + pool::plane_offset(x, n, c);
    for (std::size_t oh = 0; oh < wh.at.size(); ++oh) {
      const Window& rows = wh.at[oh];
      T* out = y.ptr<T>() + pool::plane_offset(y, n, c) + static_cast<int64_t>(oh) * y.strides[3];
      I* idx = ix.ptr<I>() + pool::plane_offset(ix, n, c) + static_cast<int64_t>(oh) * ix.strides[3];
      const auto edge = [&](int64_t ow) {
        max_one<T, I, P>(in, x.strides[3], rows, wh.step, ww.at[ow], ww.step, width, out + ow * y.strides[4],
                         idx + ow * ix.strides[4]);
      };
      for (int64_t ow = 0; ow < lo; ++ow) edge(ow);
      pool::for_each_pass(
          lo, hi,
          [&](int64_t a) {
            max_interior<T, I, P, S>(in, x.strides[3], rows, wh.step, width, a, along, out + a * y.strides[4],
                                     y.strides[4], idx + a * ix.strides[4], ix.strides[4]);
          },
          edge);
      for (int64_t ow = hi; ow < outs; ++ow) edge(ow);
    }
  });
}

template <class F>
void visit_index(const char* op, DType dtype, F&& f) {
  if (dtype == DType::Int64) return f(TypeTag<int64_t>{});
  if (dtype == DType::Int32) return f(TypeTag<int32_t>{});
  throw KernelError(std::string(op) + ": indices must be int64 or int32, got " + model::dtype_name(dtype));
}

template <class F>
void visit_poolable(const char* op, DType dtype, F&& f) {
  if (model::is_complex(dtype) || dtype == DType::Bool) {
    throw KernelError(std::string(op) + ": " + model::dtype_name(dtype) + " tensors are not supported");
  }
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) f(tag);
  });
}

// along: the sliding windows' geometry along W when the row kernels serve
// x (pool::row_planes), else null.
void run_max(const char* op, const pool::View5& x, const pool::View5& y, const pool::View5& ix, const Windows& w,
             const pool::Along* along) {
  visit_poolable(op, x.dtype, [&](auto tag) {
    visit_index(op, ix.dtype, [&](auto itag) {
      using T = typename decltype(tag)::type;
      using I = typename decltype(itag)::type;
      const bool narrow = sizeof(opmath_t<T>) <= 4 && x.sizes[2] * x.sizes[3] * x.sizes[4] <= INT32_MAX;
      const auto run = [&](auto position) {
        using P = typename decltype(position)::type;
        if (along != nullptr) {
          pool::with_stride(along->stride, [&](auto s) { max_rows<T, I, P, decltype(s)::value>(x, y, ix, w, *along); });
        } else {
          max_planes<T, I, P>(x, y, ix, w);
        }
      };
      if (narrow) {
        run(TypeTag<int32_t>{});
      } else {
        run(TypeTag<int64_t>{});
      }
    });
  });
}

[[noreturn]] void out_of_range(int64_t at, int64_t plane) {
  throw KernelError("max_pool backward: index " + std::to_string(at) + " is out of range for an input plane of " +
                    std::to_string(plane) + " elements");
}

constexpr int64_t kMaxTable = int64_t{1} << 20;

template <class T, class I>
void scatter_planes(const pool::View5& go, const pool::View5& ix, const pool::View5& gi) {
  using A = opmath_t<T>;
  const int64_t plane = gi.sizes[2] * gi.sizes[3] * gi.sizes[4];
  const int64_t height = gi.sizes[3], width = gi.sizes[4];
  const int64_t gc = go.strides[1], ic = ix.strides[1], oc = gi.strides[1];
  // Each plane position's offset in grad_input, looked up instead of three
  // divisions per element (planes up to kMaxTable positions).
  std::vector<int64_t> table;
  if (plane <= kMaxTable) {
    table.reserve(static_cast<std::size_t>(plane));
    for (int64_t d = 0; d < gi.sizes[2]; ++d) {
      for (int64_t h = 0; h < height; ++h) {
        for (int64_t w = 0; w < width; ++w) table.push_back(pool::spatial_offset(gi, d, h, w));
      }
    }
  }
  pool::for_each_group(gi, plane + go.sizes[2] * go.sizes[3] * go.sizes[4], [&](int64_t n, int64_t c0, int64_t count) {
    const T* g = go.ptr<T>() + pool::plane_offset(go, n, c0);
    const I* idx = ix.ptr<I>() + pool::plane_offset(ix, n, c0);
    T* out = gi.ptr<T>() + pool::plane_offset(gi, n, c0);
    pool::zero_channels(gi, out, count);
    for (int64_t d = 0; d < go.sizes[2]; ++d) {
      for (int64_t h = 0; h < go.sizes[3]; ++h) {
        for (int64_t w = 0; w < go.sizes[4]; ++w) {
          const T* g_at = g + pool::spatial_offset(go, d, h, w);
          const I* idx_at = idx + pool::spatial_offset(ix, d, h, w);
          for (int64_t c = 0; c < count; ++c) {
            const int64_t at = static_cast<int64_t>(idx_at[c * ic]);
            if (at < 0 || at >= plane) out_of_range(at, plane);
            const int64_t offset = table.empty()
                                       ? pool::spatial_offset(gi, at / (height * width), (at / width) % height, at % width)
                                       : table[static_cast<std::size_t>(at)];
            T& target = out[offset + c * oc];
            target = static_cast<T>(static_cast<A>(target) + static_cast<A>(g_at[c * gc]));
          }
        }
      }
    }
  });
}

// scatter_planes for planes stored dense (NCHW): an index is the element's
// offset in its plane, no division per element.
template <class T, class I>
void scatter_dense(const pool::View5& go, const pool::View5& ix, const pool::View5& gi) {
  using A = opmath_t<T>;
  const int64_t plane = gi.sizes[3] * gi.sizes[4];
  pool::for_each_group(gi, plane + go.sizes[3] * go.sizes[4], [&](int64_t n, int64_t c, int64_t) {
    const T* g = go.ptr<T>() + pool::plane_offset(go, n, c);
    const I* idx = ix.ptr<I>() + pool::plane_offset(ix, n, c);
    T* out = gi.ptr<T>() + pool::plane_offset(gi, n, c);
    std::fill_n(out, plane, T(0));
    for (int64_t h = 0; h < go.sizes[3]; ++h) {
      for (int64_t w = 0; w < go.sizes[4]; ++w) {
        const int64_t at = static_cast<int64_t>(idx[h * ix.strides[3] + w * ix.strides[4]]);
        if (at < 0 || at >= plane) out_of_range(at, plane);
        out[at] = static_cast<T>(static_cast<A>(out[at]) + static_cast<A>(g[h * go.strides[3] + w * go.strides[4]]));
      }
    }
  });
}

// Whether grad_input's planes are dense (NCHW) and pooled over 1 or 2 dims.
bool dense_planes(const pool::View5& gi, int64_t rank) {
  return rank <= 2 && pool::group_size(gi) == 1 && (gi.sizes[4] == 1 || gi.strides[4] == 1) &&
         (gi.sizes[3] == 1 || gi.strides[3] == gi.sizes[4]);
}

void check_same(const char* op, const char* name, const TensorView& t, const Shape& shape, DType dtype) {
  if (t.sizes != shape || t.dtype != dtype) {
    throw KernelError(std::string(op) + ": expected " + name + " of shape " + shape_str(shape) + " and dtype " +
                      model::dtype_name(dtype) + ", got " + shape_str(t.sizes) + " " + model::dtype_name(t.dtype));
  }
}

}  // namespace

void max_pool(const PoolInput& self, const TensorView& out, const TensorView& indices, const PoolParams& p) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  const Shape shape = pooled_shape("max_pool", self.view.sizes, p);
  check_same("max_pool", "out", out, shape, self.view.dtype);
  if (indices.sizes != shape) throw KernelError("max_pool: indices must have out's shape " + shape_str(shape));
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank), ix = pool::as_5d(indices, rank);
  const pool::Along along = pool::along_w(p);
  run_max("max_pool", x, y, ix, pool::sliding_windows(x, y, p, pool::Kind::Max),
          pool::row_planes(x, rank) ? &along : nullptr);
}

void adaptive_max_pool(const PoolInput& self, const TensorView& out, const TensorView& indices, int64_t rank) {
  if (out.dim() != self.view.dim()) throw KernelError("adaptive_max_pool: out must have self's rank");
  std::vector<int64_t> size(out.sizes.end() - rank, out.sizes.end());
  const Shape shape = adaptive_shape("adaptive_max_pool", self.view.sizes, size);
  check_same("adaptive_max_pool", "out", out, shape, self.view.dtype);
  if (indices.sizes != shape) throw KernelError("adaptive_max_pool: indices must have out's shape " + shape_str(shape));
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank), ix = pool::as_5d(indices, rank);
  run_max("adaptive_max_pool", x, y, ix, pool::adaptive_windows(x, y), nullptr);
}

void max_pool_backward(const TensorView& grad_output, const TensorView& indices, const TensorView& grad_input,
                       int64_t rank) {
  if (grad_output.sizes != indices.sizes) {
    throw KernelError("max_pool backward: grad_output " + shape_str(grad_output.sizes) + " and indices " +
                      shape_str(indices.sizes) + " must have one shape");
  }
  if (grad_output.dtype != grad_input.dtype) {
    throw KernelError("max_pool backward: grad_output and grad_input must have one dtype");
  }
  const pool::View5 go = pool::as_5d(grad_output, rank), ix = pool::as_5d(indices, rank),
                   gi = pool::as_5d(grad_input, rank);
  visit_poolable("max_pool backward", grad_input.dtype, [&](auto tag) {
    visit_index("max_pool backward", ix.dtype, [&](auto itag) {
      using T = typename decltype(tag)::type;
      using I = typename decltype(itag)::type;
      if (dense_planes(gi, rank)) {
        scatter_dense<T, I>(go, ix, gi);
      } else {
        scatter_planes<T, I>(go, ix, gi);
      }
    });
  });
}

}  // namespace npu::kernels
