// The windows a pooling reads: for each output position along each spatial
// dim, the input positions begin, begin+step, ... < end. Every pooling kernel
// sees its operands as 5-d [N, C, D, H, W] views (missing dims of size 1),
// so one loop nest serves 1-d, 2-d and 3-d pooling.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/core/nd_iter.h"
#include "kernels/core/tensor_view.h"
#include "kernels/pool/pool.h"

namespace npu::kernels::pool {

// `span` is the window's length clipped to the padded input: the divisor
// avg pooling uses with count_include_pad.
struct Window {
  int64_t begin = 0, end = 1, span = 1;
  int64_t length() const { return end > begin ? end - begin : 0; }
};

struct DimWindows {
  int64_t step = 1;
  std::vector<Window> at{Window{}};  // one trivial window: a dim the op does not pool
};

// D, H, W; the leading ones trivial for 1-d and 2-d pooling.
using Windows = std::array<DimWindows, 3>;

enum class Kind { Max, Avg };

// An operand as [N, C, D, H, W]; block > 0: channel-blocked (PoolInput).
struct View5 : TensorView {
  int64_t block = 0;
  int64_t block_stride = 0;
};

// Sliding windows. Max pooling keeps dilated positions inside the input;
// avg pooling clips to the input and remembers the padded span.
Windows sliding_windows(const View5& self5, const View5& out5, const PoolParams& p, Kind kind);
// Adaptive windows: [floor(o*in/out), ceil((o+1)*in/out)).
Windows adaptive_windows(const View5& self5, const View5& out5);

// `t` ((C, *spatial) or (N, C, *spatial), `rank` spatial dims) as [N, C, D, H, W].
View5 as_5d(const TensorView& t, int64_t rank);
View5 as_5d(const PoolInput& t, int64_t rank);

// Channels a task pools together: with channels innermost in memory
// (channels_last, NC1HWC0's C0) a task takes kGroup of them and its inner
// loops run along contiguous channels; otherwise a task is one plane.
inline constexpr int64_t kGroup = 64;

// The channels a task of `layout` takes (see kGroup).
inline int64_t group_size(const View5& layout) {
  return layout.block > 0 ? layout.block : layout.strides[1] == 1 && layout.sizes[1] > 1 ? kGroup : 1;
}

// Calls body(n, c0, count) for every group of channels [c0, c0 + count) of
// every batch entry, groups spread over oneTBB workers; `layout` decides the
// grouping, `work` is the elements one plane touches.

template <class Body>
void for_each_group(const View5& layout, int64_t work, Body&& body) {
  const int64_t channels = layout.sizes[1];
  const int64_t group = group_size(layout);
  const int64_t groups = (channels + group - 1) / group;
  parallel_range(layout.sizes[0] * groups, grain_for(work * group), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t c0 = (p % groups) * group;
      body(p / groups, c0, std::min(group, channels - c0));
    }
  });
}

// Calls f(std::true_type) when channels are adjacent in memory (stride 1),
// f(std::false_type) otherwise: the first instantiation's channel loops see
// a constant stride and vectorize.
template <class F>
void with_unit_stride(int64_t channel_stride, F&& f) {
  if (channel_stride == 1) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// for_each_group over the planes of `planes` (their elements are the work)
// with with_unit_stride on its channel stride: calls body(n, c0, count,
// stride), where `stride` is the channel stride, a compile-time 1
// (std::integral_constant) when the channels are adjacent, so the body's
// channel loops see a constant and vectorize.
template <class Body>
void for_each_channel_group(const View5& planes, Body&& body) {
  const int64_t plane = planes.sizes[2] * planes.sizes[3] * planes.sizes[4];
  for_each_group(planes, plane, [&](int64_t n, int64_t c0, int64_t count) {
    with_unit_stride(planes.strides[1], [&](auto unit) {
      if constexpr (decltype(unit)::value) {
        body(n, c0, count, std::integral_constant<int64_t, 1>{});
      } else {
        body(n, c0, count, planes.strides[1]);
      }
    });
  });
}

// Element offset of spatial position (d, h, w) in a 5-d view's plane.
inline int64_t spatial_offset(const TensorView& v5, int64_t d, int64_t h, int64_t w) {
  return d * v5.strides[2] + h * v5.strides[3] + w * v5.strides[4];
}
// Channels c.. of a group (for_each_group) are then strides[1] apart.
inline int64_t plane_offset(const View5& v5, int64_t n, int64_t c) {
  if (v5.block > 0) return n * v5.strides[0] + (c / v5.block) * v5.block_stride + c % v5.block;
  return n * v5.strides[0] + c * v5.strides[1];
}

// Calls f(od, oh, ow, wd, wh, ww) for every output position of a plane.
template <class F>
void for_each_output(const Windows& w, F&& f) {
  const auto& [wd, wh, ww] = w;
  for (std::size_t od = 0; od < wd.at.size(); ++od) {
    for (std::size_t oh = 0; oh < wh.at.size(); ++oh) {
      for (std::size_t ow = 0; ow < ww.at.size(); ++ow) {
        f(static_cast<int64_t>(od), static_cast<int64_t>(oh), static_cast<int64_t>(ow), wd.at[od], wh.at[oh],
          ww.at[ow]);
      }
    }
  }
}

// Runs f(d, h, w) for each input position the window (wd, wh, ww) of
// `windows` reads, in order (every step-th position along each dim).
template <class F>
void for_each_in_window(const Windows& windows, const Window& wd, const Window& wh, const Window& ww, F&& f) {
  for (int64_t d = wd.begin; d < wd.end; d += windows[0].step) {
    for (int64_t h = wh.begin; h < wh.end; h += windows[1].step) {
      for (int64_t w = ww.begin; w < ww.end; w += windows[2].step) f(d, h, w);
    }
  }
}

// Sets `count` channels of a 5-d view (from `base`, their first) to zero:
// backward kernels accumulate into them.
template <class T>
void zero_channels(const TensorView& v5, T* base, int64_t count) {
  for (int64_t d = 0; d < v5.sizes[2]; ++d) {
    for (int64_t h = 0; h < v5.sizes[3]; ++h) {
      for (int64_t w = 0; w < v5.sizes[4]; ++w) {
        T* at = base + spatial_offset(v5, d, h, w);
        for (int64_t c = 0; c < count; ++c) at[c * v5.strides[1]] = T(0);
      }
    }
  }
}

// Planes whose rows are contiguous in memory (NCHW and its slices along H),
// pooled over 1 or 2 dims: for_each_group gives them one plane per task,
// and the row kernels (max_pool.cpp, avg_pool.cpp) run them directly.
inline bool row_planes(const View5& v, int64_t rank) {
  return rank <= 2 && group_size(v) == 1 && (v.strides[4] == 1 || v.sizes[4] == 1);
}

// A sliding window along W: kernel positions o * stride - padding + i * dilation.
struct Along {
  int64_t kernel = 1, stride = 1, padding = 0, dilation = 1;
};

// W's window geometry in `p` (W is the last spatial dim).
inline Along along_w(const PoolParams& p) {
  return {p.kernel.back(), p.stride.back(), p.padding.back(), p.dilation.empty() ? 1 : p.dilation.back()};
}

// The outputs [lo, hi) of `outs` whose windows lie inside [0, width) (neither
// clipped nor shifted).
inline std::pair<int64_t, int64_t> interior(const Along& a, int64_t width, int64_t outs) {
  const int64_t lo = std::min(outs, (a.padding + a.stride - 1) / a.stride);
  const int64_t last = width - 1 + a.padding - (a.kernel - 1) * a.dilation;  // o * stride <= last
  const int64_t hi = last < 0 ? lo : std::max(lo, std::min(outs, last / a.stride + 1));
  return {lo, hi};
}

// Outputs a row kernel handles per vector pass: a constant count, so the
// pass has no scalar remainder loop; a row's last pass starts early enough
// to end at its last inside window (outputs computed twice are the same).
// Rows with fewer inside windows run one window at a time.
inline constexpr int64_t kRowChunk = 8;

// Calls pass(a) for passes of kRowChunk outputs covering [lo, hi), or
// one(o) for each output there when they are fewer than a pass.
template <class Pass, class One>
void for_each_pass(int64_t lo, int64_t hi, Pass&& pass, One&& one) {
  if (hi - lo < kRowChunk) {
    for (int64_t o = lo; o < hi; ++o) one(o);
    return;
  }
  for (int64_t a = lo; a < hi; a += kRowChunk) pass(std::min(a, hi - kRowChunk));
}

// Calls f(std::integral_constant<int, S>) with S = stride when it is 1 or 2
// (the vector loops then see a constant), else S = 0.
template <class F>
void with_stride(int64_t stride, F&& f) {
  if (stride == 1) return f(std::integral_constant<int, 1>{});
  if (stride == 2) return f(std::integral_constant<int, 2>{});
  f(std::integral_constant<int, 0>{});
}

}  // namespace npu::kernels::pool
