// The resampling engine: operands seen as [N, C, D, H, W] (pooling's 5-d
// views), planes or channel groups spread over oneTBB workers.
#include "kernels/upsample/resample.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

bool DimTaps::is_gather() const {
  for (int64_t o = 0; o < outputs(); ++o) {
    if (start[o + 1] - start[o] != 1 || weight[start[o]] != 1.0) return false;
  }
  return true;
}

namespace {

using pool::View5;

// The taps of all three 5-d spatial dims: missing leading dims read index 0.
std::array<DimTaps, 3> full_taps(const ResampleTaps& taps) {
  std::array<DimTaps, 3> full;
  for (DimTaps& t : full) {
    t.add(0, 1.0);
    t.close_output();
  }
  const std::size_t rank = taps.size();
  for (std::size_t i = 0; i < rank; ++i) full[3 - rank + i] = taps[i];
  return full;
}

int64_t rank_of(const ResampleTaps& taps) {
  if (taps.empty() || taps.size() > 3) throw KernelError("resample: 1 to 3 spatial dims, got " + std::to_string(taps.size()));
  return static_cast<int64_t>(taps.size());
}

// Checks that `big` (the output side) has `small`'s leading dims and the
// taps' output counts, and that every tap index lies inside `small`.
void check_shapes(const char* op, const TensorView& small, const TensorView& big, const ResampleTaps& taps) {
  const int64_t rank = rank_of(taps), nd = small.dim();
  if (nd != rank + 1 && nd != rank + 2) {
    throw KernelError(std::string(op) + ": expected a " + std::to_string(rank + 1) + "-d or " +
                      std::to_string(rank + 2) + "-d tensor, got shape " + shape_str(small.sizes));
  }
  Shape expected(small.sizes.begin(), small.sizes.end() - rank);
  for (int64_t i = 0; i < rank; ++i) {
    const DimTaps& t = taps[static_cast<std::size_t>(i)];
    expected.push_back(t.outputs());
    const int64_t in = small.sizes[nd - rank + i];
    for (const int64_t at : t.index) {
      if (at < 0 || at >= in) throw KernelError(std::string(op) + ": tap index out of range");
    }
  }
  if (big.sizes != expected) {
    throw KernelError(std::string(op) + ": expected shape " + shape_str(expected) + ", got " + shape_str(big.sizes));
  }
  if (small.dtype != big.dtype) throw KernelError(std::string(op) + ": operands must have one dtype");
}

template <class T>
void gather(const View5& x, const View5& y, const std::array<DimTaps, 3>& t) {
  const int64_t xc = x.strides[1];
  pool::for_each_channel_group(y, [&](int64_t n, int64_t c0, int64_t count, auto yc) {
    const T* in = x.ptr<T>() + n * x.strides[0] + c0 * xc;
    T* out = y.ptr<T>() + pool::plane_offset(y, n, c0);
    for (int64_t od = 0; od < y.sizes[2]; ++od) {
      const int64_t id = t[0].index[od];
      for (int64_t oh = 0; oh < y.sizes[3]; ++oh) {
        const int64_t ih = t[1].index[oh];
        for (int64_t ow = 0; ow < y.sizes[4]; ++ow) {
          const T* src = in + pool::spatial_offset(x, id, ih, t[2].index[ow]);
          T* dst = out + pool::spatial_offset(y, od, oh, ow);
          for (int64_t c = 0; c < count; ++c) dst[c * yc] = src[c * xc];
        }
      }
    }
  });
}

// One dim's taps as element offsets into a view (index * stride) and
// weights in the compute type, made once per launch.
template <class A>
struct DimOffsets {
  std::vector<int64_t> start, offset;
  std::vector<A> weight;
  DimOffsets(const DimTaps& t, int64_t stride) : start(t.start) {
    offset.reserve(t.index.size());
    weight.reserve(t.weight.size());
    for (std::size_t i = 0; i < t.index.size(); ++i) {
      offset.push_back(t.index[i] * stride);
      weight.push_back(static_cast<A>(t.weight[i]));
    }
  }
};

// Weighted sums, nested as CPU nests them: the innermost dim's taps are
// summed first, each outer tap weighting the inner sum. Planar operands
// (one channel per task) take a scalar loop; channel groups (channels-last)
// run their inner loops along the contiguous channels.
template <class T>
void interpolate(const View5& x, const View5& y, const std::array<DimTaps, 3>& t) {
  using A = opmath_t<T>;
  const int64_t xc = x.strides[1];
  const DimOffsets<A> td(t[0], x.strides[2]), th(t[1], x.strides[3]), tw(t[2], x.strides[4]);
  pool::for_each_channel_group(y, [&](int64_t n, int64_t c0, int64_t count, auto yc) {
    const T* in = x.ptr<T>() + n * x.strides[0] + c0 * xc;
    T* out = y.ptr<T>() + pool::plane_offset(y, n, c0);
    if (count == 1) {
      for (int64_t od = 0; od < y.sizes[2]; ++od) {
        for (int64_t oh = 0; oh < y.sizes[3]; ++oh) {
          T* row = out + od * y.strides[2] + oh * y.strides[3];
          for (int64_t ow = 0; ow < y.sizes[4]; ++ow) {
            A sum_d(0);
            for (int64_t a = td.start[od]; a < td.start[od + 1]; ++a) {
              A sum_h(0);
              for (int64_t b = th.start[oh]; b < th.start[oh + 1]; ++b) {
                const T* src = in + td.offset[a] + th.offset[b];
                A sum_w(0);
                for (int64_t k = tw.start[ow]; k < tw.start[ow + 1]; ++k) {
                  sum_w += tw.weight[k] * static_cast<A>(src[tw.offset[k]]);
                }
                sum_h += th.weight[b] * sum_w;
              }
              sum_d += td.weight[a] * sum_h;
            }
            row[ow * y.strides[4]] = static_cast<T>(sum_d);
          }
        }
      }
      return;
    }
    std::array<A, pool::kGroup> sum_d, sum_h, sum_w;
    for (int64_t od = 0; od < y.sizes[2]; ++od) {
      for (int64_t oh = 0; oh < y.sizes[3]; ++oh) {
        for (int64_t ow = 0; ow < y.sizes[4]; ++ow) {
          std::fill_n(sum_d.begin(), count, A(0));
          for (int64_t a = td.start[od]; a < td.start[od + 1]; ++a) {
            std::fill_n(sum_h.begin(), count, A(0));
            for (int64_t b = th.start[oh]; b < th.start[oh + 1]; ++b) {
              std::fill_n(sum_w.begin(), count, A(0));
              for (int64_t k = tw.start[ow]; k < tw.start[ow + 1]; ++k) {
                const A w = tw.weight[k];
                const T* src = in + td.offset[a] + th.offset[b] + tw.offset[k];
                for (int64_t c = 0; c < count; ++c) sum_w[c] += w * static_cast<A>(src[c * xc]);
              }
              const A wh = th.weight[b];
              for (int64_t c = 0; c < count; ++c) sum_h[c] += wh * sum_w[c];
            }
            const A wd = td.weight[a];
            for (int64_t c = 0; c < count; ++c) sum_d[c] += wd * sum_h[c];
          }
          T* dst = out + pool::spatial_offset(y, od, oh, ow);
          for (int64_t c = 0; c < count; ++c) dst[c * yc] = static_cast<T>(sum_d[c]);
        }
      }
    }
  });
}

// Each group accumulates into a buffer of its own input plane(s), [spatial][channel],
// then stores it: planes are disjoint, so no two tasks touch one element.
template <class T, Accumulate Acc>
void scatter(const View5& go, const View5& gi, const std::array<DimTaps, 3>& t) {
  using A = opmath_t<T>;
  const int64_t goc = go.strides[1];
  const int64_t in_h = gi.sizes[3], in_w = gi.sizes[4];
  const int64_t plane = gi.sizes[2] * in_h * in_w;
  pool::for_each_group(gi, plane + go.sizes[2] * go.sizes[3] * go.sizes[4], [&](int64_t n, int64_t c0, int64_t count) {
    const T* g = go.ptr<T>() + n * go.strides[0] + c0 * goc;
    std::vector<A> buf(static_cast<std::size_t>(plane * count), A(0));
    for (int64_t od = 0; od < go.sizes[2]; ++od) {
      for (int64_t oh = 0; oh < go.sizes[3]; ++oh) {
        for (int64_t ow = 0; ow < go.sizes[4]; ++ow) {
          const T* src = g + pool::spatial_offset(go, od, oh, ow);
          for (int64_t a = t[0].start[od]; a < t[0].start[od + 1]; ++a) {
            for (int64_t b = t[1].start[oh]; b < t[1].start[oh + 1]; ++b) {
              const A wdh = static_cast<A>(t[0].weight[a]) * static_cast<A>(t[1].weight[b]);
              for (int64_t k = t[2].start[ow]; k < t[2].start[ow + 1]; ++k) {
                const A w = wdh * static_cast<A>(t[2].weight[k]);
                A* dst = buf.data() + ((t[0].index[a] * in_h + t[1].index[b]) * in_w + t[2].index[k]) * count;
                for (int64_t c = 0; c < count; ++c) {
                  const A v = w * static_cast<A>(src[c * goc]);
                  if constexpr (Acc == Accumulate::Dtype) {
                    dst[c] = static_cast<A>(static_cast<T>(dst[c] + v));
                  } else {
                    dst[c] += v;
                  }
                }
              }
            }
          }
        }
      }
    }
    T* out = gi.ptr<T>() + pool::plane_offset(gi, n, c0);
    for (int64_t d = 0; d < gi.sizes[2]; ++d) {
      for (int64_t h = 0; h < in_h; ++h) {
        for (int64_t w = 0; w < in_w; ++w) {
          const A* from = buf.data() + ((d * in_h + h) * in_w + w) * count;
          T* to = out + pool::spatial_offset(gi, d, h, w);
          for (int64_t c = 0; c < count; ++c) to[c * gi.strides[1]] = static_cast<T>(from[c]);
        }
      }
    }
  });
}

template <class F>
void visit_floating(const char* op, DType dtype, F&& f) {
  if (!model::is_floating_point(dtype)) {
    throw KernelError(std::string(op) + ": " + model::dtype_name(dtype) +
                      " is not supported (float16, bfloat16, float32, float64)");
  }
  visit_dtype(dtype, [&](auto tag) {
    if constexpr (is_floating_v<typename decltype(tag)::type>) f(tag);
  });
}

}  // namespace

void resample(const TensorView& self, const TensorView& out, const ResampleTaps& taps) {
  check_shapes("resample", self, out, taps);
  const int64_t rank = rank_of(taps);
  const View5 x = pool::as_5d(self, rank), y = pool::as_5d(out, rank);
  if (y.sizes[0] * y.sizes[1] * y.sizes[2] * y.sizes[3] * y.sizes[4] == 0) return;
  const std::array<DimTaps, 3> t = full_taps(taps);
  if (t[0].is_gather() && t[1].is_gather() && t[2].is_gather()) {
    visit_dtype(self.dtype, [&](auto tag) { gather<typename decltype(tag)::type>(x, y, t); });
    return;
  }
  visit_floating("resample", self.dtype, [&](auto tag) { interpolate<typename decltype(tag)::type>(x, y, t); });
}

void resample_backward(const TensorView& grad_output, const TensorView& grad_input, const ResampleTaps& taps,
                       Accumulate accumulate) {
  check_shapes("resample backward", grad_input, grad_output, taps);
  const int64_t rank = rank_of(taps);
  const View5 go = pool::as_5d(grad_output, rank), gi = pool::as_5d(grad_input, rank);
  if (gi.sizes[0] * gi.sizes[1] * gi.sizes[2] * gi.sizes[3] * gi.sizes[4] == 0) return;
  const std::array<DimTaps, 3> t = full_taps(taps);
  visit_floating("resample backward", grad_input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (accumulate == Accumulate::Dtype) {
      scatter<T, Accumulate::Dtype>(go, gi, t);
    } else {
      scatter<T, Accumulate::ComputeType>(go, gi, t);
    }
  });
}

}  // namespace npu::kernels
