// index_select: out[..., i, ...] = self[..., index[i], ...] along `dim`.
// The work is a list of rows, one per (position before `dim`, index entry),
// each row a block of the dims after `dim`: one element, one memcpy when the
// block is dense in both tensors, or a strided walk. Indices are read in
// place (int64/int32, any stride) and bounds-checked with one compare per
// row inside the copy loop; a bad row is skipped (nothing is accessed out of
// bounds) and reported after the loop, naming the first bad index.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/raw_element.h"
#include "kernels/core/scratch.h"
#include "kernels/index/index_ops.h"
#include "kernels/index/index_table.h"

namespace npu::kernels {

namespace {

// The dims of `sizes` in [begin, end), with their strides.
struct SubShape {
  Shape sizes, strides;
};

SubShape dims_range(const TensorView& t, int64_t begin, int64_t end) {
  return {Shape(t.sizes.begin() + begin, t.sizes.begin() + end),
          Shape(t.strides.begin() + begin, t.strides.begin() + end)};
}

// Row-major dense with unit innermost stride (size-1 dims ignored).
bool dense(const Shape& sizes, const Shape& strides) {
  int64_t expected = 1;
  for (int64_t k = static_cast<int64_t>(sizes.size()) - 1; k >= 0; --k) {
    if (sizes[k] == 1) continue;
    if (strides[k] != expected) return false;
    expected *= sizes[k];
  }
  return true;
}

struct Geometry {
  int64_t dim = 0;
  int64_t entries = 0;  // index.numel()
  int64_t size = 0;     // self.size(dim): valid indices are [0, size)
  int64_t self_step = 0, out_step = 0;  // strides along dim
  int64_t outer = 1, inner = 1;         // element counts before / after dim
  SubShape outer_self, outer_out, inner_self, inner_out;
  bool inner_dense = true;
};

// Position of the first index outside [0, size), or -1.
template <class I>
int64_t first_bad(const I* idx, int64_t stride, int64_t entries, int64_t size) {
  for (int64_t i = 0; i < entries; ++i) {
    if (static_cast<uint64_t>(static_cast<int64_t>(idx[i * stride])) >= static_cast<uint64_t>(size)) return i;
  }
  return -1;
}

// How many rows ahead select_rows prefetches source rows.
constexpr int64_t kAhead = 16;

template <class R, class I>
void select_rows(const Geometry& g, R* out, const R* self, const I* idx, int64_t idx_stride) {
  const auto bad = [&] {
    const int64_t i = first_bad(idx, idx_stride, g.entries, g.size);
    if (i >= 0) checked_index("index_select()", static_cast<int64_t>(idx[i * idx_stride]), g.dim, g.size, false);
  };
  const int64_t rows = g.outer * g.entries;
  if (rows == 0 || g.inner == 0) {
    bad();  // nothing to move, but bad indices are still an error
    return;
  }
  std::atomic<bool> failed{false};
  const std::size_t block_bytes = static_cast<std::size_t>(g.inner) * sizeof(R);
  const int64_t ri_self = g.inner_self.strides.empty() ? 0 : g.inner_self.strides.back();
  const int64_t ri_out = g.inner_out.strides.empty() ? 0 : g.inner_out.strides.back();
  parallel_range(rows, grain_for(g.inner), [&](int64_t begin, int64_t end) {
    int64_t o = begin / g.entries, i = begin % g.entries;
    while (begin < end) {
      const int64_t n = std::min(g.entries - i, end - begin);  // rows of this outer position
      R* dst = out + offset_of(o, g.outer_out.sizes, g.outer_out.strides) + i * g.out_step;
      const R* src = self + offset_of(o, g.outer_self.sizes, g.outer_self.strides);
      const I* ip = idx + i * idx_stride;
      bool row_failed = false;
      for (int64_t j = 0; j < n; ++j, dst += g.out_step, ip += idx_stride) {
        // Random rows miss the cache: ask for the row kAhead entries on now,
        // so several misses are in flight (prefetching never faults, but only
        // valid rows are named).
        if (j + kAhead < n) {
          const int64_t ahead = static_cast<int64_t>(ip[kAhead * idx_stride]);
          if (static_cast<uint64_t>(ahead) < static_cast<uint64_t>(g.size)) {
            __builtin_prefetch(src + ahead * g.self_step);
          }
        }
        const int64_t k = static_cast<int64_t>(*ip);
        if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(g.size)) {
          row_failed = true;
          continue;
        }
        const R* s = src + k * g.self_step;
        if (g.inner == 1) {
          *dst = *s;
        } else if (g.inner_dense) {
          std::memcpy(dst, s, block_bytes);
        } else {
          for_each_run<2>(g.inner_out.sizes, {&g.inner_out.strides, &g.inner_self.strides}, 0, g.inner,
                          [&](const std::array<int64_t, 2>& off, int64_t, int64_t len) {
                            for (int64_t e = 0; e < len; ++e) dst[off[0] + e * ri_out] = s[off[1] + e * ri_self];
                          });
        }
      }
      if (row_failed) failed.store(true, std::memory_order_relaxed);
      begin += n;
      ++o;
      i = 0;
    }
  });
  if (failed.load()) bad();
}

}  // namespace

void index_select(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index) {
  check_index_select(out, self, dim, index);
  const int64_t d = wrap_dim(dim, self.dim());
  Geometry g;
  g.dim = d;
  g.entries = index.numel();
  if (self.dim() == 0) {  // a 0-dim self indexes like a 1-element 1-D one
    g.size = 1;
  } else {
    g.size = self.sizes[d];
    g.self_step = self.strides[d];
    g.out_step = out.dim() == 0 ? 0 : out.strides[d];
    for (int64_t k = 0; k < d; ++k) g.outer *= self.sizes[k];
    for (int64_t k = d + 1; k < self.dim(); ++k) g.inner *= self.sizes[k];
    if (d > 0) {
      g.outer_self = dims_range(self, 0, d);
      g.outer_out = dims_range(out, 0, d);
    }
    if (d + 1 < self.dim()) {
      g.inner_self = dims_range(self, d + 1, self.dim());
      g.inner_out = dims_range(out, d + 1, out.dim());
      g.inner_dense = dense(g.inner_self.sizes, g.inner_self.strides) && dense(g.inner_out.sizes, g.inner_out.strides);
    }
  }
  // int64 and int32 indices are read where they are; other integer dtypes
  // are widened to int64 first.
  std::optional<ScratchTensor> holder;
  const TensorView iv =
      index.dtype == DType::Int32 ? index : input_as(index, DType::Int64, holder);
  const int64_t idx_stride = iv.dim() == 0 ? 0 : iv.strides[0];
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using R = typename decltype(tag)::type;
    if (iv.dtype == DType::Int32) {
      select_rows<R>(g, out.ptr<R>(), self.ptr<const R>(), iv.ptr<const int32_t>(), idx_stride);
    } else {
      select_rows<R>(g, out.ptr<R>(), self.ptr<const R>(), iv.ptr<const int64_t>(), idx_stride);
    }
  });
}

}  // namespace npu::kernels
