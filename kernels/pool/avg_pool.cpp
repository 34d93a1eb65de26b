// Average pooling, sliding and adaptive, forward and backward. Sums run in
// opmath (float for reduced floats, the element type otherwise: int64 avg
// pooling divides as integers, as CPU does). Sliding windows divide by
// divisor_override, else the padded span (count_include_pad) or the count
// of input elements; adaptive windows divide by each dim's length in turn
// (sum / kd / kh / kw), which is how CPU rounds.
#include <algorithm>
#include <array>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

using pool::Window;
using pool::Windows;

// How a window's sum becomes its average.
struct Divisor {
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t override_value = 0;
  // CPU's 3-d adaptive average sums and divides in the element type itself
  // (float16 rounds at every step); npu does the same to match it.
  bool in_element_type = false;

  template <class A>
  A apply(A sum, const Window& wd, const Window& wh, const Window& ww) const {
    if (adaptive) return sum / static_cast<A>(wd.length()) / static_cast<A>(wh.length()) / static_cast<A>(ww.length());
    int64_t div = override_value;
    if (div == 0) {
      div = count_include_pad ? wd.span * wh.span * ww.span : wd.length() * wh.length() * ww.length();
    }
    return sum / static_cast<A>(div);
  }

  // A gradient's share of each window element, in T as CPU computes it: an
  // adaptive window's delta is rounded after each division.
  template <class T>
  T delta(T grad, const Window& wd, const Window& wh, const Window& ww) const {
    using A = opmath_t<T>;
    if (!adaptive) return static_cast<T>(apply(static_cast<A>(grad), wd, wh, ww));
    T d = grad;
    for (const Window* w : {&wd, &wh, &ww}) d = static_cast<T>(static_cast<A>(d) / static_cast<A>(w->length()));
    return d;
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
      for (int64_t d = wd.begin; d < wd.end; ++d) {
        for (int64_t h = wh.begin; h < wh.end; ++h) {
          for (int64_t w = ww.begin; w < ww.end; ++w) {
            const T* src = in + pool::spatial_offset(x, d, h, w);
            if (divisor.in_element_type) {  // rounded to T at every step
              for (int64_t c = 0; c < count; ++c) sum[c] = static_cast<A>(static_cast<T>(sum[c] + static_cast<A>(src[c * xc])));
            } else {
              for (int64_t c = 0; c < count; ++c) sum[c] += static_cast<A>(src[c * xc]);
            }
          }
        }
      }
      for (int64_t c = 0; c < count; ++c) {
        dst[c * yc] = divisor.in_element_type ? divisor.delta(static_cast<T>(sum[c]), wd, wh, ww)
                                              : static_cast<T>(divisor.apply(sum[c], wd, wh, ww));
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
      for (int64_t c = 0; c < count; ++c) delta[c] = static_cast<A>(divisor.delta(g_at[c * gc], wd, wh, ww));
      for (int64_t d = wd.begin; d < wd.end; ++d) {
        for (int64_t h = wh.begin; h < wh.end; ++h) {
          for (int64_t w = ww.begin; w < ww.end; ++w) {
            T* target = out + pool::spatial_offset(gi, d, h, w);
            for (int64_t c = 0; c < count; ++c) {
              target[c * oc] = static_cast<T>(static_cast<A>(target[c * oc]) + delta[c]);
            }
          }
        }
      }
    });
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

void forward(const char* op, const pool::View5& x, const pool::View5& y, const Windows& w, const Divisor& div) {
  visit_averageable(op, x.dtype, [&](auto tag) { avg_planes<typename decltype(tag)::type>(x, y, w, div); });
}

void backward(const char* op, const pool::View5& go, const pool::View5& gi, const Windows& w, const Divisor& div) {
  visit_averageable(op, gi.dtype,
                    [&](auto tag) { avg_backward_planes<typename decltype(tag)::type>(go, gi, w, div); });
}

}  // namespace

void avg_pool(const PoolInput& self, const TensorView& out, const PoolParams& p, bool count_include_pad,
              int64_t divisor_override) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  check_same("avg_pool", "out", out, pooled_shape("avg_pool", self.view.sizes, p), self.view.dtype);
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank);
  forward("avg_pool", x, y, pool::sliding_windows(x, y, p, pool::Kind::Avg),
          Divisor{false, count_include_pad, divisor_override});
}

void avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, const PoolParams& p,
                       bool count_include_pad, int64_t divisor_override) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  check_same("avg_pool backward", "grad_output", grad_output, pooled_shape("avg_pool", grad_input.sizes, p),
             grad_input.dtype);
  const pool::View5 go = pool::as_5d(grad_output, rank), gi = pool::as_5d(grad_input, rank);
  backward("avg_pool backward", go, gi, pool::sliding_windows(gi, go, p, pool::Kind::Avg),
           Divisor{false, count_include_pad, divisor_override});
}

void adaptive_avg_pool(const PoolInput& self, const TensorView& out, int64_t rank) {
  if (out.dim() != self.view.dim()) throw KernelError("adaptive_avg_pool: out must have self's rank");
  const std::vector<int64_t> size(out.sizes.end() - rank, out.sizes.end());
  check_same("adaptive_avg_pool", "out", out, adaptive_shape("adaptive_avg_pool", self.view.sizes, size), self.view.dtype);
  const pool::View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank);
  forward("adaptive_avg_pool", x, y, pool::adaptive_windows(x, y), Divisor{true, true, 0, rank == 3});
}

void adaptive_avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, int64_t rank) {
  if (grad_output.dim() != grad_input.dim()) throw KernelError("adaptive_avg_pool backward: grad_output must have grad_input's rank");
  const std::vector<int64_t> size(grad_output.sizes.end() - rank, grad_output.sizes.end());
  check_same("adaptive_avg_pool backward", "grad_output", grad_output,
             adaptive_shape("adaptive_avg_pool", grad_input.sizes, size), grad_input.dtype);
  const pool::View5 go = pool::as_5d(grad_output, rank), gi = pool::as_5d(grad_input, rank);
  backward("adaptive_avg_pool backward", go, gi, pool::adaptive_windows(gi, go), Divisor{true});
}

}  // namespace npu::kernels
