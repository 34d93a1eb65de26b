#include "kernels/index/index_table.h"

#include <cstring>
#include <string>

#include "kernels/core/dims.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/raw_element.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

std::vector<int64_t> read_indices(const TensorView& index) {
  if (model::is_floating_point(index.dtype) || model::is_complex(index.dtype) || index.dtype == DType::Bool) {
    throw KernelError(std::string("tensors used as indices must be long or int tensors, got ") +
                      model::dtype_name(index.dtype));
  }
  std::vector<int64_t> values(index.numel());
  const TensorView dst{values.data(), DType::Int64, index.sizes, contiguous_strides(index.sizes)};
  copy(dst, index);
  return values;
}

int64_t checked_index(const char* op, int64_t index, int64_t dim, int64_t size, bool allow_negative) {
  const int64_t wrapped = allow_negative && index < 0 ? index + size : index;
  if (wrapped < 0 || wrapped >= size) {
    throw KernelError(std::string(op) + ": index " + std::to_string(index) + " is out of bounds for dimension " +
                      std::to_string(dim) + " with size " + std::to_string(size));
  }
  return wrapped;
}

std::vector<int64_t> element_offsets(const Shape& sizes, const Shape& strides) {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  std::vector<int64_t> table(n);
  const int64_t inner = strides.empty() ? 0 : strides.back();
  for_each_run<1>(sizes, {&strides}, 0, n, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t len) {
    for (int64_t i = 0; i < len; ++i) table[pos + i] = off[0] + i * inner;
  });
  return table;
}

namespace {

template <class R>
void indexed_copy_typed(const IndexedCopy& c) {
  R* dst = static_cast<R*>(c.dst);
  const R* src = static_cast<const R*>(c.src);
  const int64_t entries = static_cast<int64_t>(c.dst_table.size());
  int64_t rest = 1;
  for (const int64_t s : c.rest_sizes) rest *= s;
  if (entries == 0 || rest == 0) return;
  const int64_t rd = c.rest_dst.empty() ? 0 : c.rest_dst.back();
  const int64_t rs = c.rest_src.empty() ? 0 : c.rest_src.back();
  // Slices contiguous in dst: walk each entry's slice (rest innermost).
  // Otherwise walk the table innermost, so consecutive writes are adjacent
  // (e.g. index_select along the last dim).
  if (rd == 1 || c.rest_sizes.empty()) {
    parallel_range(entries * rest, grain_for(1), [&](int64_t begin, int64_t end) {
      for (int64_t b = begin / rest; b * rest < end; ++b) {
        const int64_t rb = std::max(begin - b * rest, int64_t{0}), re = std::min(end - b * rest, rest);
        R* d = dst + c.dst_table[b];
        const R* s = src + c.src_table[b];
        for_each_run<2>(c.rest_sizes, {&c.rest_dst, &c.rest_src}, rb, re,
                        [&](const std::array<int64_t, 2>& off, int64_t, int64_t n) {
                          if (rd == 1 && rs == 1) {
                            std::memcpy(d + off[0], s + off[1], n * sizeof(R));
                          } else {
                            for (int64_t i = 0; i < n; ++i) d[off[0] + i * rd] = s[off[1] + i * rs];
                          }
                        });
      }
    });
    return;
  }
  parallel_range(rest * entries, grain_for(1), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin / entries; r * entries < end; ++r) {
      const int64_t bb = std::max(begin - r * entries, int64_t{0}), be = std::min(end - r * entries, entries);
      R* d = dst + offset_of(r, c.rest_sizes, c.rest_dst);
      const R* s = src + offset_of(r, c.rest_sizes, c.rest_src);
      for (int64_t b = bb; b < be; ++b) d[c.dst_table[b]] = s[c.src_table[b]];
    }
  });
}

}  // namespace

void run_indexed_copy(const IndexedCopy& c) {
  visit_itemsize(c.itemsize, [&](auto tag) { indexed_copy_typed<typename decltype(tag)::type>(c); });
}

}  // namespace npu::kernels
