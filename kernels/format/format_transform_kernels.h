// Internal to the format transforms (format_transform.cpp and the family
// files it routes to): the two layout families every private format reduces
// to, and the kernels that move data for each. Callers use
// format_transform.h.
//
// Every private format is one of:
// - channel-blocked: the logical tensor is [N, C, D, S] (S = merged spatial
//   dims) and C is cut into C1 blocks of C0 that become the fastest storage
//   dim. NC1HWC0, NC1HWC0_C04, NDC1HWC0, NDHWC (C0 = C, one block) and
//   FRACTAL_Z / FRACTAL_Z_3D (N padded to 16 and placed just outside C0) only
//   differ in where the other dims go, i.e. in storage strides.
// - NZ: the logical tensor is [B, M, K]; K is cut into K1 blocks of C0 and
//   M padded to a multiple of 16, storage [B, K1, M1*16, C0].
#pragma once

#include <algorithm>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/core/strided_loop.h"  // kParallelGrain

namespace npu::kernels::format_detail {

enum class Direction { ToStorage, ToBase };

struct ChannelBlockedLayout {
  int64_t n = 1, c = 1, d = 1, s = 1;  // logical [N, C, D, S], row-major
  int64_t c0 = 1;                      // channels per block
  int64_t c1 = 1;                      // blocks: cdiv(C, C0)
  int64_t n_padded = 1;                // N, or N rounded up to 16 (extra n are zero)
  // Storage offset of logical (n, c, d, s), with c = c1i * C0 + c0i:
  // n*n_stride + c1i*c1_stride + d*d_stride + s*s_stride + c0i.
  int64_t n_stride = 0, c1_stride = 0, d_stride = 0, s_stride = 0;
  // Blocks are visited in tiles of n_tile consecutive n. FRACTAL_Z keeps
  // consecutive n adjacent in storage, so a tile of many n fills each storage
  // run n_tile * C0 elements long, whole lines, while the base side is read
  // one n at a time in order (see transform_channel_blocked); NC1HWC0 and
  // kin store n outermost and use 1.
  int64_t n_tile = 1;
};

struct NzLayout {
  int64_t batch = 1, m = 1, k = 1;  // logical [B, M, K], row-major
  int64_t c0 = 16;                  // columns per block
  int64_t k1 = 1;                   // cdiv(K, C0)
  int64_t m_padded = 16;            // M rounded up to 16
};

// `in` (in_numel elements) is the base buffer and `out` the storage for
// ToStorage, the reverse for ToBase. ToStorage writes every storage element
// (padding as zero). T is an unsigned integer of the element size: the
// kernels only move bits.
template <class T>
void transform_channel_blocked(const ChannelBlockedLayout& layout, Direction dir, const T* in, int64_t in_numel,
                               T* out);
template <class T>
void transform_nz(const NzLayout& layout, Direction dir, const T* in, int64_t in_numel, T* out);

// Runs body(begin, end) over [0, tasks), split across oneTBB workers when the
// whole job (tasks * elements_per_task elements) is worth waking them.
template <class Body>
void for_each_block(int64_t tasks, int64_t elements_per_task, const Body& body) {
  const int64_t per_task = std::max<int64_t>(elements_per_task, 1);
  if (tasks <= 1 || tasks * per_task < kParallelGrain) {
    if (tasks > 0) body(int64_t{0}, tasks);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / per_task);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, tasks, grain),
                    [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
}

}  // namespace npu::kernels::format_detail
