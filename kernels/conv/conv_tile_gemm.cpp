#include "kernels/conv/conv_tile_gemm.h"

#include <algorithm>
#include <vector>

#include "kernels/core/nd_iter.h"
#include "kernels/linalg/reused_buffer.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace npu::kernels::conv {

#if defined(__AVX512F__)

namespace {

constexpr int kVecs = kTileCols / 16;
constexpr int64_t kKC = 256;          // k per block: a B panel slice of 32 KB
constexpr int64_t kPanelsPerTask = 4;  // row panels per task

// C tile (kTileRows x kTileCols at c, row stride ldc) = (load ? C : 0) +
// A rows (a[r][0, kc)) * B panel over kc.
void micro_kernel(int64_t kc, const float* const* a, const float* b, float* c, int64_t ldc, bool load) {
  __m512 acc[kTileRows][kVecs];
#pragma GCC unroll 14
  for (int r = 0; r < kTileRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) acc[r][v] = load ? _mm512_loadu_ps(c + r * ldc + 16 * v) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[kVecs];
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_ps(b + p * kTileCols + 16 * v);
#pragma GCC unroll 14
    for (int r = 0; r < kTileRows; ++r) {
      const __m512 av = _mm512_set1_ps(a[r][p]);
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < kTileRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
  }
}

}  // namespace

bool tile_gemm_available() { return __builtin_cpu_supports("avx512f"); }

void tile_gemm(const TileGemm& g) {
  if (g.m <= 0 || g.n <= 0) return;
  const int64_t col_panels = (g.n + kTileCols - 1) / kTileCols;
  const int64_t row_panels = (g.m + kTileRows - 1) / kTileRows;
  const int64_t k = std::max<int64_t>(g.k, 0);
  // B packed whole once: [panel][k][kTileCols], zero past n.
  const linalg::ReusedBuffer b_store(sizeof(float) * static_cast<std::size_t>(std::max<int64_t>(col_panels * k * kTileCols, 1)));
  float* const bp = b_store.as<float>();
  parallel_range(col_panels * ((k + kKC - 1) / kKC), 1, [&](int64_t begin, int64_t end) {
    const int64_t k_blocks = (k + kKC - 1) / kKC;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t jp = t / k_blocks;
      const int64_t k0 = (t % k_blocks) * kKC;
      const int64_t kc = std::min(kKC, k - k0);
      const int64_t cols = std::min<int64_t>(kTileCols, g.n - jp * kTileCols);
      float* dst = bp + (jp * k + k0) * kTileCols;
      if (cols < kTileCols) std::fill(dst, dst + kc * kTileCols, 0.0f);
      g.pack_b(jp * kTileCols, cols, k0, kc, dst);
    }
  });
  const int64_t run = g.k_run > 0 ? g.k_run : std::max<int64_t>(k, 1);
  const int64_t tasks = (row_panels + kPanelsPerTask - 1) / kPanelsPerTask;
  parallel_range(tasks, 1, [&](int64_t begin, int64_t end) {
    const float* a[kTileRows];
    alignas(64) float tile[kTileRows * kTileCols];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p_end = std::min(row_panels, (t + 1) * kPanelsPerTask);
      int64_t k0 = 0;
      do {
        const int64_t kc = std::min({kKC, k - k0, run - k0 % run});
        for (int64_t ip = t * kPanelsPerTask; ip < p_end; ++ip) {
          const int64_t i0 = ip * kTileRows;
          const int64_t rows = std::min<int64_t>(kTileRows, g.m - i0);
          // Rows past m repeat the last one; their results are dropped.
          for (int64_t r = 0; r < kTileRows; ++r) a[r] = kc > 0 ? g.a_row(i0 + std::min(r, rows - 1), k0) : nullptr;
          for (int64_t jp = 0; jp < col_panels; ++jp) {
            const int64_t j0 = jp * kTileCols;
            const int64_t cols = std::min<int64_t>(kTileCols, g.n - j0);
            const float* b = bp + (jp * k + k0) * kTileCols;
            float* c = g.c + i0 * g.ldc + j0;
            if (rows == kTileRows && cols == kTileCols) {
              micro_kernel(kc, a, b, c, g.ldc, k0 > 0);
              continue;
            }
            // An edge tile: through a full-size scratch tile.
            if (k0 > 0) {
              for (int64_t r = 0; r < rows; ++r) std::copy(c + r * g.ldc, c + r * g.ldc + cols, tile + r * kTileCols);
            }
            micro_kernel(kc, a, b, tile, kTileCols, k0 > 0);
            for (int64_t r = 0; r < rows; ++r) std::copy(tile + r * kTileCols, tile + r * kTileCols + cols, c + r * g.ldc);
          }
        }
        k0 += kc;
      } while (k0 < k);
    }
  });
}

#else

bool tile_gemm_available() { return false; }

void tile_gemm(const TileGemm&) {}

#endif

}  // namespace npu::kernels::conv
