// Walking an n-d index space by element offsets: the loop shape shared by
// reductions, scans, indexing and sort. Ranges are in row-major linear index
// order, so any [begin, end) slice can be handed to a worker thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Calls f(offsets, pos, n) for consecutive runs of the linear range
// [begin, end) along the innermost dim of `sizes`: offsets[k] is the element
// offset of the run's first element under stride set k, pos its linear index,
// n its length (the run advances by strides[k]->back()). A 0-dim space is
// one element.
template <std::size_t N, class F>
void for_each_run(const Shape& sizes, const std::array<const Shape*, N>& strides, int64_t begin, int64_t end,
                  F&& f) {
  if (begin >= end) return;
  std::array<int64_t, N> off{};
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) {
    f(off, int64_t{0}, int64_t{1});
    return;
  }
  // Coordinates on the stack for usual ranks: this runs once per output row.
  std::array<int64_t, 12> small{};
  std::vector<int64_t> large(nd > 12 ? nd : 0);
  int64_t* coord = nd > 12 ? large.data() : small.data();
  int64_t rem = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    coord[d] = rem % sizes[d];
    rem /= sizes[d];
    for (std::size_t k = 0; k < N; ++k) off[k] += coord[d] * (*strides[k])[d];
  }
  const int64_t inner = sizes[nd - 1];
  int64_t pos = begin;
  while (true) {
    const int64_t n = std::min(inner - coord[nd - 1], end - pos);
    f(off, pos, n);
    pos += n;
    if (pos >= end) return;
    // The run ended at the inner dim's end: rewind it and carry outwards.
    for (std::size_t k = 0; k < N; ++k) off[k] -= coord[nd - 1] * (*strides[k])[nd - 1];
    coord[nd - 1] = 0;
    for (int64_t d = nd - 2; d >= 0; --d) {
      for (std::size_t k = 0; k < N; ++k) off[k] += (*strides[k])[d];
      if (++coord[d] < sizes[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= coord[d] * (*strides[k])[d];
      coord[d] = 0;
    }
  }
}

// Runs body(begin, end) over chunks of [0, total), each at least `grain` long,
// on oneTBB workers; on the calling thread when one chunk covers everything.
template <class Body>
void parallel_range(int64_t total, int64_t grain, Body&& body) {
  if (total <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (total <= grain) {
    body(int64_t{0}, total);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, grain),
                    [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
}

// Grain (in items) so that each chunk does about kParallelGrain elements of
// work when one item costs `work_per_item` elements.
inline int64_t grain_for(int64_t work_per_item) {
  constexpr int64_t kWork = 32768;  // matches kParallelGrain of the strided loop
  return std::max<int64_t>(1, kWork / std::max<int64_t>(work_per_item, 1));
}

}  // namespace npu::kernels
