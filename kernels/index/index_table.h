// Indexing by tables of element offsets: the machinery under index_select,
// take, advanced indexing and index_put. An index op turns its index tensors
// into per-entry element offsets once (checking every index), after which
// moving the data is a plain strided copy of whole slices.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The values of an integer index tensor (int64, int32 or any integer dtype),
// any strides, in row-major order.
std::vector<int64_t> read_indices(const TensorView& index);

// `index` checked against a dim of `size`, negative values wrapped when
// allowed. Throws KernelError "<op>: index 7 is out of bounds for dimension
// 0 with size 5".
int64_t checked_index(const char* op, int64_t index, int64_t dim, int64_t size, bool allow_negative);

// Element offsets of every element of `sizes` under `strides`, row-major.
std::vector<int64_t> element_offsets(const Shape& sizes, const Shape& strides);

// For every table entry b and every position r of the rest space:
//   dst[dst_table[b] + rest_dst(r)] = src[src_table[b] + rest_src(r)]
// Offsets and strides are in elements of `itemsize` bytes. Runs on oneTBB
// workers; when dst_table repeats an offset, one of the writes wins.
struct IndexedCopy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t itemsize = 1;
  std::vector<int64_t> dst_table, src_table;
  Shape rest_sizes, rest_dst, rest_src;
};
void run_indexed_copy(const IndexedCopy& c);

}  // namespace npu::kernels
