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

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

using pool::Window;
using pool::Windows;

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
  const int64_t steps[3] = {windows[0].step, windows[1].step, windows[2].step};
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
      for (int64_t d = wd.begin; d < wd.end; d += steps[0]) {
        for (int64_t h = wh.begin; h < wh.end; h += steps[1]) {
          for (int64_t w = ww.begin; w < ww.end; w += steps[2]) {
            const T* src = in + pool::spatial_offset(x, d, h, w);
            const P pos = static_cast<P>((d * height + h) * width + w);
            // Branch-free, so the loop along contiguous channels vectorizes.
            for (int64_t c = 0; c < count; ++c) {
              const A v = static_cast<A>(src[c * xc]);
              const bool take = v > best[c] || is_nan(v);
              best[c] = take ? v : best[c];
              at[c] = take ? pos : at[c];
            }
          }
        }
      }
      T* dst = out + pool::spatial_offset(y, od, oh, ow);
      I* dst_idx = idx + pool::spatial_offset(ix, od, oh, ow);
      for (int64_t c = 0; c < count; ++c) {
        dst[c * yc] = static_cast<T>(best[c]);
        dst_idx[c * ic] = static_cast<I>(at[c]);
      }
    });
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

void run_max(const char* op, const pool::View5& x, const pool::View5& y, const pool::View5& ix, const Windows& w) {
  visit_poolable(op, x.dtype, [&](auto tag) {
    visit_index(op, ix.dtype, [&](auto itag) {
      using T = typename decltype(tag)::type;
      using I = typename decltype(itag)::type;
      const bool narrow = sizeof(opmath_t<T>) <= 4 && x.sizes[2] * x.sizes[3] * x.sizes[4] <= INT32_MAX;
      if (narrow) {
        max_planes<T, I, int32_t>(x, y, ix, w);
      } else {
        max_planes<T, I, int64_t>(x, y, ix, w);
      }
    });
  });
}

template <class T, class I>
void scatter_planes(const pool::View5& go, const pool::View5& ix, const pool::View5& gi) {
  using A = opmath_t<T>;
  const int64_t plane = gi.sizes[2] * gi.sizes[3] * gi.sizes[4];
  const int64_t height = gi.sizes[3], width = gi.sizes[4];
  const int64_t gc = go.strides[1], ic = ix.strides[1], oc = gi.strides[1];
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
            if (at < 0 || at >= plane) {
              throw KernelError("max_pool backward: index " + std::to_string(at) +
                                " is out of range for an input plane of " + std::to_string(plane) + " elements");
            }
            T& target = out[pool::spatial_offset(gi, at / (height * width), (at / width) % height, at % width) + c * oc];
            target = static_cast<T>(static_cast<A>(target) + static_cast<A>(g_at[c * gc]));
          }
        }
      }
    }
  });
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
  run_max("max_pool", x, y, ix, pool::sliding_windows(x, y, p, pool::Kind::Max));
}

void adaptive_max_pool(const PoolInput& self, const TensorView& out, const TensorView& indices, int64_t rank) {
  if (out.dim() != self.view.dim()) throw KernelError("adaptive_max_pool: out must have self's rank");
  std::vector<int64_t> size(out.sizes.end() - rank, out.sizes.end());
  const Shape shape = adaptive_shape("adaptive_max_pool", self.view.sizes, size);
  check_same("adaptive_max_pool", "out", out, shape, self.view.dtype);
  if (indices.sizes != shape) throw KernelError("adaptive_max_pool: indices must have out's shape " + shape_str(shape));
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank), ix = pool::as_5d(indices, rank);
  run_max("adaptive_max_pool", x, y, ix, pool::adaptive_windows(x, y));
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
      scatter_planes<typename decltype(tag)::type, typename decltype(itag)::type>(go, ix, gi);
    });
  });
}

}  // namespace npu::kernels
