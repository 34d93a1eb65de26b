// The loop engine under every elementwise kernel: walks N operands of one
// shape, each with its own byte strides, and hands contiguous-in-memory 1-D
// runs to a callback. Adjacent dims that are mergeable for every operand are
// coalesced first, so a contiguous tensor of any rank is a single run; large
// iteration spaces are split across oneTBB workers.
#pragma once

#include <array>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Below this many elements a kernel runs on the calling thread: the cost of
// waking workers exceeds the work.
inline constexpr int64_t kParallelGrain = 32768;

template <std::size_t N>
struct StridedOperands {
  std::array<char*, N> base{};
  // strides[d][i]: byte stride of operand i along dim d (outermost first).
  SmallVector<std::array<int64_t, N>, 8> strides;
  Shape sizes;
};

// Views must all have the same sizes (broadcast them first).
template <std::size_t N>
StridedOperands<N> make_operands(const std::array<const TensorView*, N>& views) {
  StridedOperands<N> ops;
  const Shape& sizes = views[0]->sizes;
  for (std::size_t i = 0; i < N; ++i) ops.base[i] = static_cast<char*>(views[i]->data);
  // Drop size-1 dims, then merge dim d into d+1 where every operand allows it.
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    std::array<int64_t, N> st{};
    for (std::size_t i = 0; i < N; ++i) st[i] = views[i]->strides[d] * static_cast<int64_t>(views[i]->itemsize());
    if (!ops.sizes.empty()) {
      // The previous (outer) dim folds into this one when stepping it once
      // equals stepping this one sizes[d] times, for every operand.
      bool mergeable = true;
      const auto& outer_strides = ops.strides.back();
      for (std::size_t i = 0; i < N; ++i) mergeable &= outer_strides[i] == st[i] * sizes[d];
      if (mergeable) {
        ops.sizes.back() *= sizes[d];
        ops.strides.back() = st;
        continue;
      }
    }
    ops.sizes.push_back(sizes[d]);
    ops.strides.push_back(st);
  }
  if (ops.sizes.empty()) {
    ops.sizes.push_back(1);
    ops.strides.push_back({});
  }
  return ops;
}

// Calls run(ptrs, inner_strides, n) for 1-D runs covering every element.
// `run` must be safe to call concurrently on disjoint runs.
template <std::size_t N, class Run>
void strided_loop(const StridedOperands<N>& ops, Run&& run) {
  const int64_t ndim = static_cast<int64_t>(ops.sizes.size());
  const int64_t inner = ops.sizes.back();
  int64_t outer = 1;
  for (int64_t d = 0; d + 1 < ndim; ++d) outer *= ops.sizes[d];
  if (outer == 0 || inner == 0) return;
  const auto& inner_strides = ops.strides.back();

  // Splits [begin, end) of the flattened (outer x inner) space into runs.
  auto range = [&](int64_t begin, int64_t end) {
    std::array<char*, N> p{};
    while (begin < end) {
      int64_t o = begin / inner;
      const int64_t i0 = begin % inner;
      const int64_t n = std::min(inner - i0, end - begin);
      for (std::size_t k = 0; k < N; ++k) p[k] = ops.base[k] + i0 * inner_strides[k];
      for (int64_t d = ndim - 2; d >= 0; --d) {
        const int64_t idx = o % ops.sizes[d];
        o /= ops.sizes[d];
        for (std::size_t k = 0; k < N; ++k) p[k] += idx * ops.strides[d][k];
      }
      run(p, inner_strides, n);
      begin += n;
    }
  };

  const int64_t total = outer * inner;
  if (total < kParallelGrain) {
    range(0, total);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, kParallelGrain / 2),
                      [&](const tbb::blocked_range<int64_t>& r) { range(r.begin(), r.end()); });
  }
}

}  // namespace npu::kernels
