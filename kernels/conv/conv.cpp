#include "kernels/conv/conv.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include <tbb/combinable.h>
#include <tbb/task_arena.h>

#include "kernels/conv/conv_dtype.h"
#include "kernels/conv/conv_gemm.h"
#include "kernels/conv/conv_shifted.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels::conv {

namespace {

using Int3 = std::array<int64_t, 3>;

int64_t prod(const Int3& a) { return a[0] * a[1] * a[2]; }

// `v` (one value per spatial dim) as three dims, padded in front with `fill`:
// 1-d and 2-d convolutions run as 3-d ones with leading size-1 dims.
Int3 as3(const Shape& v, int64_t fill) {
  Int3 out{fill, fill, fill};
  const std::size_t lead = 3 - v.size();
  for (std::size_t i = 0; i < v.size(); ++i) out[lead + i] = v[i];
  return out;
}

// The geometry of one convolution in three spatial dims.
struct Geometry {
  Int3 image, column, kernel, stride, padding, dilation;
  int64_t image_numel() const { return prod(image); }
  int64_t column_numel() const { return prod(column); }
  int64_t kernel_numel() const { return prod(kernel); }
  // 1x1 kernel, stride 1, no padding: im2col and col2im are the identity.
  bool pointwise() const {
    for (int i = 0; i < 3; ++i) {
      if (kernel[i] != 1 || stride[i] != 1 || padding[i] != 0 || image[i] != column[i]) return false;
    }
    return true;
  }
};

Geometry geometry(const Shape& image, const Shape& kernel, const Shape& column, const ConvParams& p) {
  return {as3(image, 1),    as3(column, 1),    as3(kernel, 1),
          as3(p.stride, 1), as3(p.padding, 0), as3(p.dilation, 1)};
}

Int3 strides3(const ConvOperand& t) { return as3(t.spatial_strides, 0); }

// Whether channels [c_begin, c_begin + count) of `t` at index n are one dense
// row-major matrix [count, spatial numel] of element type T (readable or
// writable in place, without packing). Returns its address, else null.
template <class T>
T* dense_rows(const ConvOperand& t, int64_t n, int64_t c_begin, int64_t count) {
  const Int3 sizes = as3(t.spatial, 1);
  const Int3 st = strides3(t);
  const int64_t plane = prod(sizes);
  if ((sizes[2] > 1 && st[2] != 1) || (sizes[1] > 1 && st[1] != sizes[2]) ||
      (sizes[0] > 1 && st[0] != sizes[1] * sizes[2])) {
    return nullptr;
  }
  for (int64_t c = 1; c < count; ++c) {
    if (t.channel[c_begin + c] != t.channel[c_begin] + c * plane) return nullptr;
  }
  return static_cast<T*>(t.data) + t.outer[n] + t.channel[c_begin];
}

// Calls f(flat index, element offset) over a 3-d block of `sizes` with strides `st`.
template <class F>
void for_each_position(const Int3& sizes, const Int3& st, F&& f) {
  int64_t flat = 0;
  for (int64_t a = 0; a < sizes[0]; ++a) {
    for (int64_t b = 0; b < sizes[1]; ++b) {
      const int64_t row = a * st[0] + b * st[1];
      for (int64_t c = 0; c < sizes[2]; ++c) f(flat++, row + c * st[2]);
    }
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// The column positions [lo, hi) along one dim whose image index
// x * stride + offset falls inside [0, size).
std::pair<int64_t, int64_t> valid_range(int64_t columns, int64_t stride, int64_t offset, int64_t size) {
  const int64_t lo = std::min(columns, ceil_div(-offset, stride));
  const int64_t hi = std::max(lo, std::min(columns, ceil_div(size - offset, stride)));
  return {lo, hi};
}

// One line of the column matrix (g.column[2] positions of one kernel
// position, one channel, one (od, oh)): where it starts in the matrix, and
// the image row it reads (id, ih; inside: within the image), with the valid
// positions [lo, hi) along W at image offset ow * stride + off_w.
struct ColumnLine {
  int64_t c, at, id, ih, lo, hi, off_w;
  bool inside;
};

// Runs f(line) for every line of the column matrix of `channels` channels
// (row stride ld), in order.
template <class F>
void for_each_column_line(const Geometry& g, int64_t channels, int64_t ld, F&& f) {
  int64_t row_index = 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      const int64_t off_d = kd * g.dilation[0] - g.padding[0];
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        const int64_t off_h = kh * g.dilation[1] - g.padding[1];
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const int64_t off_w = kw * g.dilation[2] - g.padding[2];
          const auto [lo, hi] = valid_range(g.column[2], g.stride[2], off_w, g.image[2]);
          int64_t at = ld * row_index++;
          for (int64_t od = 0; od < g.column[0]; ++od) {
            const int64_t id = od * g.stride[0] + off_d;
            for (int64_t oh = 0; oh < g.column[1]; ++oh, at += g.column[2]) {
              const int64_t ih = oh * g.stride[1] + off_h;
              const bool inside = id >= 0 && id < g.image[0] && ih >= 0 && ih < g.image[1];
              f(ColumnLine{c, at, id, ih, lo, hi, off_w, inside});
            }
          }
        }
      }
    }
  }
}

template <class T, class Acc>
void im2col_typed(const ConvOperand& image, int64_t n, int64_t c_begin, int64_t channels, const Geometry& g,
                  Acc* col, int64_t ld) {
  const Int3 st = strides3(image);
  const T* data = static_cast<const T*>(image.data) + image.outer[n];
  for_each_column_line(g, channels, ld, [&](const ColumnLine& l) {
    Acc* dst = col + l.at;
    if (!l.inside) {
      std::fill(dst, dst + g.column[2], Acc(0));
      return;
    }
    const T* row = data + image.channel[c_begin + l.c] + l.id * st[0] + l.ih * st[1];
    std::fill(dst, dst + l.lo, Acc(0));
    if (g.stride[2] == 1 && st[2] == 1) {
      const T* from = row + l.lo + l.off_w;
      for (int64_t ow = l.lo; ow < l.hi; ++ow) dst[ow] = convert<Acc>(from[ow - l.lo]);
    } else {
      for (int64_t ow = l.lo; ow < l.hi; ++ow) dst[ow] = convert<Acc>(row[(ow * g.stride[2] + l.off_w) * st[2]]);
    }
    std::fill(dst + l.hi, dst + g.column[2], Acc(0));
  });
}

// For each kernel position and column position (row-major), the offset of
// the image element that im2col reads there (by the spatial strides `st`),
// or -1 where it reads padding. The same for every image and channel.
std::vector<int64_t> im2col_offsets(const Geometry& g, const Int3& st) {
  std::vector<int64_t> table(static_cast<std::size_t>(g.kernel_numel() * g.column_numel()));
  int64_t* t = table.data();
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        for (int64_t od = 0; od < g.column[0]; ++od) {
          const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.padding[0];
          for (int64_t oh = 0; oh < g.column[1]; ++oh) {
            const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.padding[1];
            for (int64_t ow = 0; ow < g.column[2]; ++ow) {
              const int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.padding[2];
              const bool inside = id >= 0 && id < g.image[0] && ih >= 0 && ih < g.image[1] && iw >= 0 &&
                                  iw < g.image[2];
              *t++ = inside ? id * st[0] + ih * st[1] + iw * st[2] : -1;
            }
          }
        }
      }
    }
  }
  return table;
}

// im2col_typed through an im2col_offsets table: one flat loop per row, so
// small images (rows of a few elements) do not pay a loop nest per row.
template <class T, class Acc>
void im2col_by_table(const ConvOperand& image, int64_t n, int64_t c_begin, int64_t channels, const Geometry& g,
                     const std::vector<int64_t>& table, Acc* col, int64_t ld) {
  const int64_t kernel = g.kernel_numel();
  const int64_t columns = g.column_numel();
  const T* data = static_cast<const T*>(image.data) + image.outer[n];
  for (int64_t c = 0; c < channels; ++c) {
    const T* src = data + image.channel[c_begin + c];
    for (int64_t k = 0; k < kernel; ++k) {
      const int64_t* idx = table.data() + k * columns;
      Acc* dst = col + ld * (c * kernel + k);
      for (int64_t i = 0; i < columns; ++i) dst[i] = idx[i] < 0 ? Acc(0) : convert<Acc>(src[idx[i]]);
    }
  }
}

// `v` rounded to T's precision when T is a reduced float (identity otherwise).
template <class T, class Acc>
Acc rounded(Acc v) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<Acc>(static_cast<float>(T(v)));
  } else {
    return v;
  }
}

// col2im; with T a reduced float each sum is rounded to T, as in PyTorch
// CPU's slow path (ConvParams::round_intermediates).
template <class T, class Acc>
void col2im_geometry(const Acc* col, int64_t channels, const Geometry& g, Acc* image, int64_t ld) {
  const int64_t plane = g.image_numel();
  for_each_column_line(g, channels, ld, [&](const ColumnLine& l) {
    if (!l.inside) return;
    const Acc* src = col + l.at;
    Acc* row = image + l.c * plane + (l.id * g.image[1] + l.ih) * g.image[2];
    if (g.stride[2] == 1) {
      Acc* to = row + l.lo + l.off_w;
      for (int64_t ow = l.lo; ow < l.hi; ++ow) to[ow - l.lo] = rounded<T>(to[ow - l.lo] + src[ow]);
    } else {
      for (int64_t ow = l.lo; ow < l.hi; ++ow) {
        Acc& dst = row[ow * g.stride[2] + l.off_w];
        dst = rounded<T>(dst + src[ow]);
      }
    }
  });
}

// The weight gradient's GEMM puts this many column positions (or more) side
// by side: a long inner dimension keeps the GEMM efficient for small images.
constexpr int64_t kMinInner = 512;

// The forward and backward-input passes put images side by side when an
// image has fewer column positions than this (see Passes::batched_chunk),
// with at most this many elements in a chunk's column matrix (32 MiB of float).
// Measured on ResNet-18's layers (batch 8): from 16x16 images (256 columns)
// up, per-image GEMMs (whose column matrix stays in cache) are as fast or
// faster; at 8x8 and below the side-by-side GEMM wins by up to several times.
// The forward, backward-input and weight-gradient (all images in one chunk)
// passes use it.
constexpr int64_t kBatchedMaxColumns = 256;
constexpr int64_t kBatchedMaxElements = int64_t{1} << 23;

// Per-thread buffers reused across tasks and calls (worker threads persist),
// so large column matrices are not re-faulted in for every image. A task
// holding them runs isolated (in_isolation): the GEMM engine's own
// parallel_for must not let this thread pick up another of our tasks, which
// would reuse the buffers while they are in use.
template <class Acc>
Acc* thread_buffer(int slot, int64_t count) {
  thread_local std::array<std::vector<Acc>, 3> buffers;
  std::vector<Acc>& b = buffers[static_cast<std::size_t>(slot)];
  if (static_cast<int64_t>(b.size()) < count) b.resize(static_cast<std::size_t>(count));
  return b.data();
}

template <class F>
void in_isolation(F&& f) {
  tbb::this_task_arena::isolate(std::forward<F>(f));
}

// The weight of each group as a dense row-major matrix [rows, size1 * kernel].
template <class T, class Acc>
std::vector<Acc> pack_weight(const ConvOperand& w, const Geometry& g) {
  const Int3 st = strides3(w);
  const int64_t k = g.kernel_numel();
  std::vector<Acc> packed(static_cast<std::size_t>(w.size0() * w.size1() * k));
  const T* data = static_cast<const T*>(w.data);
  Acc* dst = packed.data();
  for (int64_t o = 0; o < w.size0(); ++o) {
    for (int64_t i = 0; i < w.size1(); ++i) {
      const T* src = data + w.outer[o] + w.channel[i];
      for_each_position(g.kernel, st, [&](int64_t, int64_t off) { *dst++ = convert<Acc>(src[off]); });
    }
  }
  return packed;
}

template <class T, class Acc>
void store_weight(const std::vector<Acc>& packed, const ConvOperand& w, const Geometry& g) {
  const Int3 st = strides3(w);
  T* data = static_cast<T*>(w.data);
  const Acc* src = packed.data();
  for (int64_t o = 0; o < w.size0(); ++o) {
    for (int64_t i = 0; i < w.size1(); ++i) {
      T* dst = data + w.outer[o] + w.channel[i];
      for_each_position(g.kernel, st, [&](int64_t, int64_t off) { dst[off] = convert<T>(*src++); });
    }
  }
}

// Whether the weight `w` (of element type T) is one dense row-major matrix
// [size0, size1 * kernel]: then the passes use it in place. Returns its
// address, else null.
template <class T>
T* dense_weight(const ConvOperand& w) {
  T* rows = w.size0() > 0 ? dense_rows<T>(w, 0, 0, w.size1()) : nullptr;
  if (rows == nullptr) return nullptr;
  const int64_t row = w.size1() * prod(as3(w.spatial, 1));
  for (int64_t o = 1; o < w.size0(); ++o) {
    if (w.outer[o] != w.outer[0] + o * row) return nullptr;
  }
  return rows;
}

// The weight of each group as a dense row-major matrix [rows, size1 * kernel]:
// in place when it is one already, else packed into `storage`.
template <class T, class Acc>
const Acc* weight_rows(const ConvOperand& w, const Geometry& g, std::vector<Acc>& storage) {
  if constexpr (std::is_same_v<T, Acc>) {
    if (const T* dense = dense_weight<T>(w)) return dense;
  }
  storage = pack_weight<T, Acc>(w, g);
  return storage.data();
}

// Channels [c_begin, c_begin + count) of t[n] as a dense [count, positions]
// matrix: in place when possible, else packed into `buffer`.
template <class T, class Acc>
const Acc* read_rows(const ConvOperand& t, int64_t n, int64_t c_begin, int64_t count, int slot) {
  if constexpr (std::is_same_v<T, Acc>) {
    if (const T* dense = dense_rows<T>(t, n, c_begin, count)) return dense;
  }
  const Int3 sizes = as3(t.spatial, 1);
  const Int3 st = strides3(t);
  const int64_t plane = prod(sizes);
  Acc* out = thread_buffer<Acc>(slot, count * plane);
  const T* data = static_cast<const T*>(t.data) + t.outer[n];
  for (int64_t c = 0; c < count; ++c) {
    const T* src = data + t.channel[c_begin + c];
    Acc* dst = out + c * plane;
    for_each_position(sizes, st, [&](int64_t i, int64_t off) { dst[i] = convert<Acc>(src[off]); });
  }
  return out;
}

// Copies channels [c_begin, c_begin + count) of t[n] into rows of `out`
// (row c at out + c * ld) in the compute type.
template <class T, class Acc>
void gather_rows(const ConvOperand& t, int64_t n, int64_t c_begin, int64_t count, Acc* out, int64_t ld) {
  const Int3 sizes = as3(t.spatial, 1);
  const Int3 st = strides3(t);
  const int64_t plane = prod(sizes);
  const bool dense = sizes[2] == 1 || st[2] == 1;
  const T* data = static_cast<const T*>(t.data) + t.outer[n];
  for (int64_t c = 0; c < count; ++c) {
    const T* src = data + t.channel[c_begin + c];
    Acc* dst = out + c * ld;
    if (dense && (sizes[1] == 1 || st[1] == sizes[2]) && (sizes[0] == 1 || st[0] == sizes[1] * sizes[2])) {
      for (int64_t i = 0; i < plane; ++i) dst[i] = convert<Acc>(src[i]);
    } else {
      for_each_position(sizes, st, [&](int64_t i, int64_t off) { dst[i] = convert<Acc>(src[off]); });
    }
  }
}

// Writes a dense [count, positions] matrix into channels [c_begin, ...) of
// t[n], adding bias[c_begin + c] when given.
// Row c of `rows` starts at rows + c * ld (ld = 0: the positions count).
template <class T, class Acc>
void write_rows(const Acc* rows, const ConvOperand& t, int64_t n, int64_t c_begin, int64_t count,
                const TensorView* bias, int64_t ld = 0) {
  const Int3 sizes = as3(t.spatial, 1);
  const Int3 st = strides3(t);
  const int64_t plane = prod(sizes);
  if (ld == 0) ld = plane;
  T* data = static_cast<T*>(t.data) + t.outer[n];
  for (int64_t c = 0; c < count; ++c) {
    Acc b(0);
    if (bias != nullptr) {
      visit_dtype(bias->dtype, [&](auto tag) {
        using B = typename decltype(tag)::type;
        b = convert<Acc>(bias->ptr<B>()[(c_begin + c) * bias->strides[0]]);
      });
    }
    T* dst = data + t.channel[c_begin + c];
    const Acc* src = rows + c * ld;
    for_each_position(sizes, st, [&](int64_t i, int64_t off) { dst[off] = convert<T>(src[i] + b); });
  }
}

// The three GEMM-based passes of the header, over a column side A and an
// image side B; W holds `groups` matrices [rows, kc].
template <class T, class Acc>
struct Passes {
  const Geometry& g;
  int64_t groups;
  int64_t rows;      // A's channels per group
  int64_t channels;  // B's channels per group
  bool round;        // ConvParams::round_intermediates, for a reduced-float T
  int64_t kc() const { return channels * g.kernel_numel(); }

  // How many images the batched passes put side by side (0: run the
  // per-image passes). Small images give skinny per-image GEMMs (N = the
  // column positions, 4..196 in ResNet's later layers) that use the GEMM
  // engine poorly; side by side they make one wide GEMM, which the engine
  // parallelises itself. Large images keep one GEMM per image, images in
  // parallel. The chunk is capped so its column matrix stays bounded.
  int64_t batched_chunk(int64_t batch) const {
    const int64_t columns = g.column_numel();
    if (batch <= 1 || columns == 0 || columns >= kBatchedMaxColumns) return 0;
    const int64_t per_image = std::max<int64_t>(1, std::max(kc(), rows) * columns);
    const int64_t chunk = std::min(batch, kBatchedMaxElements / per_image);
    return chunk >= 2 ? chunk : 0;
  }

  // The im2col columns of image n's group grp in thread slot 0 (B's own
  // rows, read as Acc, for a pointwise kernel).
  const Acc* columns_of(const ConvOperand& b, int64_t n, int64_t grp) const {
    if (g.pointwise()) return read_rows<T, Acc>(b, n, grp * channels, channels, 0);
    Acc* buf = thread_buffer<Acc>(0, kc() * g.column_numel());
    im2col_typed<T, Acc>(b, n, grp * channels, channels, g, buf, g.column_numel());
    return buf;
  }

  // Runs task(n, grp) for every image n and group, spread over the workers,
  // each in isolation.
  template <class Task>
  void per_image_and_group(int64_t batch, Task&& task) const {
    parallel_range(batch * groups, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) in_isolation([&] { task(t / groups, t % groups); });
    });
  }

  // Runs f(first, count, ld, grp) in isolation for each chunk of `chunk`
  // images [first, first + count) side by side (ld = count columns wide)
  // and each group.
  template <class F>
  void per_chunk_and_group(int64_t batch, int64_t chunk, F&& f) const {
    in_isolation([&] {
      for (int64_t first = 0; first < batch; first += chunk) {
        const int64_t count = std::min(chunk, batch - first);
        for (int64_t grp = 0; grp < groups; ++grp) f(first, count, count * g.column_numel(), grp);
      }
    });
  }

  // column_side over chunks of images side by side, one GEMM per chunk and group.
  void column_side_batched(const ConvOperand& a, const ConvOperand& b, const Acc* w,
                           const TensorView* bias, int64_t chunk) const {
    const int64_t columns = g.column_numel();
    const int64_t grain = grain_for(kc() * columns);
    const std::vector<int64_t> table = im2col_offsets(g, strides3(b));
    per_chunk_and_group(a.size0(), chunk, [&](int64_t first, int64_t count, int64_t ld, int64_t grp) {
      Acc* col = thread_buffer<Acc>(0, kc() * ld);
      Acc* out = thread_buffer<Acc>(1, rows * ld);
      parallel_range(count, grain, [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          im2col_by_table<T, Acc>(b, first + j, grp * channels, channels, g, table, col + j * columns, ld);
        }
      });
      gemm<Acc>(false, false, rows, ld, kc(), w + grp * rows * kc(), kc(), col, ld, out, ld, false);
      parallel_range(count, grain_for(rows * columns), [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          write_rows<T, Acc>(out + j * columns, a, first + j, grp * rows, rows, bias, ld);
        }
      });
    });
  }

  // image_side over chunks of images side by side: one GEMM per chunk and
  // group, then col2im per image in parallel.
  void image_side_batched(const ConvOperand& b, const ConvOperand& a, const Acc* w,
                          const TensorView* bias, int64_t chunk) const {
    const int64_t columns = g.column_numel();
    const int64_t plane = g.image_numel();
    per_chunk_and_group(b.size0(), chunk, [&](int64_t first, int64_t count, int64_t ld, int64_t grp) {
      // Slots 0 and 2 of this thread hold the chunk's matrices; the
      // per-image tasks below use slot 1 only (this thread runs some).
      Acc* an = thread_buffer<Acc>(2, rows * ld);
      Acc* col = thread_buffer<Acc>(0, kc() * ld);
      parallel_range(count, grain_for(rows * columns), [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          gather_rows<T, Acc>(a, first + j, grp * rows, rows, an + j * columns, ld);
        }
      });
      gemm<Acc>(true, false, kc(), ld, rows, w + grp * rows * kc(), kc(), an, ld, col, ld, false);
      // round_intermediates: the columns and every col2im sum rounded to T.
      if (round) {
        for (int64_t i = 0; i < kc() * ld; ++i) col[i] = rounded<T>(col[i]);
      }
      parallel_range(count, grain_for(kc() * columns), [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          if (g.pointwise()) {
            write_rows<T, Acc>(col + j * columns, b, first + j, grp * channels, channels, bias, ld);
            continue;
          }
          Acc* img = thread_buffer<Acc>(1, channels * plane);
          std::fill(img, img + channels * plane, Acc(0));
          if (round) {
            col2im_geometry<T, Acc>(col + j * columns, channels, g, img, ld);
          } else {
            col2im_geometry<Acc, Acc>(col + j * columns, channels, g, img, ld);
          }
          write_rows<T, Acc>(img, b, first + j, grp * channels, channels, bias);
        }
      });
    });
  }

  // A[n] = W * im2col(B[n]) (+ bias over A's channels).
  void column_side(const ConvOperand& a, const ConvOperand& b, const Acc* w,
                   const TensorView* bias) const {
    const int64_t columns = g.column_numel();
    if (const int64_t chunk = batched_chunk(a.size0()); chunk > 0) {
      column_side_batched(a, b, w, bias, chunk);
      return;
    }
    per_image_and_group(a.size0(), [&](int64_t n, int64_t grp) {
      const Acc* col = columns_of(b, n, grp);
      const Acc* wg = w + grp * rows * kc();
      // The product goes straight into A when A's rows are dense and of
      // the compute type (no bias to add); else through a buffer.
      Acc* direct = nullptr;
      if constexpr (std::is_same_v<T, Acc>) {
        if (bias == nullptr) direct = dense_rows<T>(a, n, grp * rows, rows);
      }
      Acc* out = direct != nullptr ? direct : thread_buffer<Acc>(1, rows * columns);
      gemm<Acc>(false, false, rows, columns, kc(), wg, kc(), col, columns, out, columns, false);
      if (direct == nullptr) write_rows<T, Acc>(out, a, n, grp * rows, rows, bias);
    });
  }

  // B[n] = col2im(W^T * A[n]) (+ bias over B's channels).
  void image_side(const ConvOperand& b, const ConvOperand& a, const Acc* w,
                  const TensorView* bias) const {
    const int64_t columns = g.column_numel();
    const int64_t plane = g.image_numel();
    if (const int64_t chunk = batched_chunk(b.size0()); chunk > 0) {
      image_side_batched(b, a, w, bias, chunk);
      return;
    }
    per_image_and_group(b.size0(), [&](int64_t n, int64_t grp) {
      const Acc* an = read_rows<T, Acc>(a, n, grp * rows, rows, 2);
      const Acc* wg = w + grp * rows * kc();
      Acc* img = thread_buffer<Acc>(1, channels * plane);
      // round_intermediates: the columns and every col2im sum rounded to T.
      if (g.pointwise()) {
        gemm<Acc>(true, false, kc(), columns, rows, wg, kc(), an, columns, img, columns, false);
        if (round) {
          for (int64_t i = 0; i < channels * plane; ++i) img[i] = rounded<T>(img[i]);
        }
      } else {
        Acc* col = thread_buffer<Acc>(0, kc() * columns);
        gemm<Acc>(true, false, kc(), columns, rows, wg, kc(), an, columns, col, columns, false);
        std::fill(img, img + channels * plane, Acc(0));
        if (round) {
          for (int64_t i = 0; i < kc() * columns; ++i) col[i] = rounded<T>(col[i]);
          col2im_geometry<T, Acc>(col, channels, g, img, columns);
        } else {
          col2im_geometry<Acc, Acc>(col, channels, g, img, columns);
        }
      }
      write_rows<T, Acc>(img, b, n, grp * channels, channels, bias);
    });
  }

  // dW = sum over n of A[n] * im2col(B[n])^T, over chunks of images whose
  // columns sit side by side ([rows, chunk * columns] times its transpose
  // partner), so the GEMM's inner dimension is long even for small images.
  // Written to `out`, dense [groups * rows, kc].
  void weight_grad(const ConvOperand& a, const ConvOperand& b, Acc* out) const {
    const int64_t batch = a.size0();
    const int64_t columns = g.column_numel();
    if (batched_chunk(batch) == batch) {
      weight_grad_batched(a, b, out);
      return;
    }
    const int64_t chunk =
        std::max<int64_t>(1, std::min<int64_t>(batch, ceil_div(kMinInner, std::max<int64_t>(columns, 1))));
    const int64_t chunks = batch == 0 ? 0 : ceil_div(batch, chunk);
    const std::size_t total = static_cast<std::size_t>(groups * rows * kc());
    tbb::combinable<std::vector<Acc>> partial([total] { return std::vector<Acc>(total, Acc(0)); });
    parallel_range(chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t ch = begin; ch < end; ++ch) in_isolation([&] {
        std::vector<Acc>& acc = partial.local();
        const int64_t first = ch * chunk;
        const int64_t count = std::min(chunk, batch - first);
        const int64_t ld = count * columns;
        for (int64_t grp = 0; grp < groups; ++grp) {
          const Acc* an = nullptr;
          const Acc* col = nullptr;
          if (count == 1) {
            an = read_rows<T, Acc>(a, first, grp * rows, rows, 2);
            col = columns_of(b, first, grp);
          } else {
            Acc* abuf = thread_buffer<Acc>(1, rows * ld);
            Acc* cbuf = thread_buffer<Acc>(0, kc() * ld);
            for (int64_t j = 0; j < count; ++j) {
              const Acc* rows_j = read_rows<T, Acc>(a, first + j, grp * rows, rows, 2);
              for (int64_t r = 0; r < rows; ++r) {
                std::copy(rows_j + r * columns, rows_j + (r + 1) * columns, abuf + r * ld + j * columns);
              }
              im2col_typed<T, Acc>(b, first + j, grp * channels, channels, g, cbuf + j * columns, ld);
            }
            an = abuf;
            col = cbuf;
          }
          gemm<Acc>(false, true, rows, kc(), ld, an, ld, col, ld, acc.data() + grp * rows * kc(), kc(), true);
        }
      });
    });
    std::fill(out, out + total, Acc(0));
    partial.combine_each([&](const std::vector<Acc>& p) {
      for (std::size_t i = 0; i < total; ++i) out[i] += p[i];
    });
  }

  // weight_grad with all images side by side: gathered in parallel, then one
  // GEMM per group straight into `out` (the engine parallelises it).
  void weight_grad_batched(const ConvOperand& a, const ConvOperand& b, Acc* out) const {
    const int64_t batch = a.size0();
    const int64_t columns = g.column_numel();
    const int64_t ld = batch * columns;
    const std::vector<int64_t> table = im2col_offsets(g, strides3(b));
    in_isolation([&] {
      for (int64_t grp = 0; grp < groups; ++grp) {
        Acc* abuf = thread_buffer<Acc>(1, rows * ld);
        Acc* cbuf = thread_buffer<Acc>(0, kc() * ld);
        parallel_range(batch, grain_for((rows + kc()) * columns), [&](int64_t begin, int64_t end) {
          for (int64_t j = begin; j < end; ++j) {
            gather_rows<T, Acc>(a, j, grp * rows, rows, abuf + j * columns, ld);
            im2col_by_table<T, Acc>(b, j, grp * channels, channels, g, table, cbuf + j * columns, ld);
          }
        });
        gemm<Acc>(false, true, rows, kc(), ld, abuf, ld, cbuf, ld, out + grp * rows * kc(), kc(), false);
      }
    });
  }
};

// The sum of count contiguous values in kLanes interleaved partial sums
// (which the compiler vectorizes; one running sum would be a serial chain).
template <class T, class Acc>
Acc dense_sum(const T* src, int64_t count) {
  constexpr int kLanes = 16;
  std::array<Acc, kLanes> lanes{};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[static_cast<std::size_t>(l)] += convert<Acc>(src[i + l]);
  }
  Acc sum(0);
  for (const Acc v : lanes) sum += v;
  for (; i < count; ++i) sum += convert<Acc>(src[i]);
  return sum;
}

template <class T, class Acc>
void bias_grad(const ConvOperand& grad_output, const TensorView& grad_bias) {
  const Int3 sizes = as3(grad_output.spatial, 1);
  const Int3 st = strides3(grad_output);
  const T* data = static_cast<const T*>(grad_output.data);
  const bool dense = (sizes[2] == 1 || st[2] == 1) && (sizes[1] == 1 || st[1] == sizes[2]) &&
                     (sizes[0] == 1 || st[0] == sizes[1] * sizes[2]);
  parallel_range(grad_output.size1(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      Acc sum(0);
      for (int64_t n = 0; n < grad_output.size0(); ++n) {
        const T* src = data + grad_output.outer[n] + grad_output.channel[c];
        if (dense) {
          sum += dense_sum<T, Acc>(src, prod(sizes));
        } else {
          for_each_position(sizes, st, [&](int64_t, int64_t off) { sum += convert<Acc>(src[off]); });
        }
      }
      visit_dtype(grad_bias.dtype, [&](auto tag) {
        using B = typename decltype(tag)::type;
        grad_bias.ptr<B>()[c * grad_bias.strides[0]] = convert<B>(sum);
      });
    }
  });
}

// Calls f(tag, passes) with the passes of a convolution whose column side is
// `a` and image side `b`, in the element type of `dtype` (tag's type; its
// compute type is acc_t of it). The forward and backward entries share this.
template <class F>
void visit_passes(DType dtype, const ConvOperand& a, const ConvOperand& b, const ConvOperand& weight,
                  const ConvParams& p, F&& f) {
  const Geometry g = geometry(b.spatial, weight.spatial, a.spatial, p);
  visit_conv_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Passes<T, acc_t<T>> passes{g, p.groups, weight.size0() / p.groups, weight.size1(),
                                     is_reduced_float_v<T> && p.round_intermediates};
    f(tag, passes);
  });
}

}  // namespace

ConvOperand strided_operand(const TensorView& v) {
  ConvOperand op;
  op.data = v.data;
  op.dtype = v.dtype;
  op.outer.resize(static_cast<std::size_t>(v.sizes[0]));
  for (int64_t i = 0; i < v.sizes[0]; ++i) op.outer[static_cast<std::size_t>(i)] = i * v.strides[0];
  op.channel.resize(static_cast<std::size_t>(v.sizes[1]));
  for (int64_t i = 0; i < v.sizes[1]; ++i) op.channel[static_cast<std::size_t>(i)] = i * v.strides[1];
  for (int64_t d = 2; d < v.dim(); ++d) {
    op.spatial.push_back(v.sizes[d]);
    op.spatial_strides.push_back(v.strides[d]);
  }
  return op;
}

Shape column_sizes(const Shape& image, const Shape& kernel, const ConvParams& p) {
  Shape out;
  for (std::size_t d = 0; d < image.size(); ++d) {
    out.push_back((image[d] + 2 * p.padding[d] - p.dilation[d] * (kernel[d] - 1) - 1) / p.stride[d] + 1);
  }
  return out;
}

void convolution(const ConvOperand& input, const ConvOperand& weight, const TensorView* bias,
                 const ConvOperand& output, const ConvParams& p, bool transposed) {
  if (shifted_applies(input, weight, p, transposed) || strided_forward_applies(input, weight, p, transposed)) {
    shifted_convolution(input, weight, bias, output, p);
    return;
  }
  const ConvOperand& a = transposed ? input : output;
  const ConvOperand& b = transposed ? output : input;
  visit_passes(input.dtype, a, b, weight, p, [&](auto tag, const auto& passes) {
    using T = typename decltype(tag)::type;
    using Acc = acc_t<T>;
    if (a.size0() == 0) return;
    std::vector<Acc> storage;
    const Acc* w = weight_rows<T, Acc>(weight, passes.g, storage);
    if (transposed) {
      passes.image_side(b, a, w, bias);
    } else {
      passes.column_side(a, b, w, bias);
    }
  });
}

void convolution_backward(const ConvOperand& grad_output, const ConvOperand& input, const ConvOperand& weight,
                          const ConvOperand* grad_input, const ConvOperand* grad_weight, const TensorView* grad_bias,
                          const ConvParams& p, bool transposed) {
  if (grad_input != nullptr && grad_input->size0() > 0 && shifted_applies(input, weight, p, transposed)) {
    shifted_input_grad(grad_output, weight, *grad_input, p);
    grad_input = nullptr;  // done; the weight and bias gradients below
  }
  if (grad_weight != nullptr && input.size0() > 0 && tile_weight_grad_applies(input, weight, p, transposed)) {
    tile_weight_grad(grad_output, input, *grad_weight, p);
    grad_weight = nullptr;
  }
  // The column side is grad_output for a plain convolution, input for a transposed one.
  const ConvOperand& a = transposed ? input : grad_output;
  const ConvOperand& b = transposed ? grad_output : input;
  visit_passes(input.dtype, a, b, weight, p, [&](auto tag, const auto& passes) {
    using T = typename decltype(tag)::type;
    using Acc = acc_t<T>;
    if (grad_input != nullptr && grad_input->size0() > 0) {
      std::vector<Acc> storage;
      const Acc* w = weight_rows<T, Acc>(weight, passes.g, storage);
      if (transposed) {
        passes.column_side(*grad_input, b, w, nullptr);
      } else {
        passes.image_side(*grad_input, a, w, nullptr);
      }
    }
    if (grad_weight != nullptr) {
      // Straight into grad_weight when it is dense of the compute type.
      Acc* dense = nullptr;
      if constexpr (std::is_same_v<T, Acc>) dense = dense_weight<T>(*grad_weight);
      if (dense != nullptr) {
        passes.weight_grad(a, b, dense);
      } else {
        std::vector<Acc> dw(static_cast<std::size_t>(passes.groups * passes.rows * passes.kc()));
        passes.weight_grad(a, b, dw.data());
        store_weight<T, Acc>(dw, *grad_weight, passes.g);
      }
    }
    if (grad_bias != nullptr) bias_grad<T, Acc>(grad_output, *grad_bias);
  });
}

template <class Acc>
void im2col(const ConvOperand& image, int64_t n, int64_t c_begin, int64_t channels, const Shape& kernel,
            const Shape& columns, const ConvParams& p, Acc* col) {
  const Geometry g = geometry(image.spatial, kernel, columns, p);
  visit_dtype(image.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw KernelError("im2col: complex images are not supported");
    } else {
      im2col_typed<T, Acc>(image, n, c_begin, channels, g, col, g.column_numel());
    }
  });
}

template <class Acc>
void col2im(const Acc* col, int64_t channels, const Shape& image_sizes, const Shape& kernel, const Shape& columns,
            const ConvParams& p, Acc* image) {
  const Geometry g = geometry(image_sizes, kernel, columns, p);
  col2im_geometry<Acc, Acc>(col, channels, g, image, g.column_numel());
}

template void im2col<float>(const ConvOperand&, int64_t, int64_t, int64_t, const Shape&, const Shape&,
                            const ConvParams&, float*);
template void im2col<double>(const ConvOperand&, int64_t, int64_t, int64_t, const Shape&, const Shape&,
                             const ConvParams&, double*);
template void col2im<float>(const float*, int64_t, const Shape&, const Shape&, const Shape&, const ConvParams&,
                            float*);
template void col2im<double>(const double*, int64_t, const Shape&, const Shape&, const Shape&, const ConvParams&,
                             double*);

}  // namespace npu::kernels::conv
