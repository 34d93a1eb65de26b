#include "kernels/conv/conv_tile_gemm.h"

#include <algorithm>
#include <array>
#include <vector>

#include <tbb/combinable.h>
#include <tbb/task_arena.h>

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

// A stretch of a k block that is contiguous in every row of A: A(i, k) for
// k in the stretch is a_row(i)[offset + (k - stretch start)].
struct Segment {
  int64_t offset = 0, len = 0;
};

// The segments of k range [k0, k0 + kc) (at most kKC + 1 of them).
struct Segments {
  std::array<Segment, kKC + 1> items;
  int count = 0;

  Segments(const TileGemm& g, int64_t run, int64_t k0, int64_t kc) {
    for (int64_t l = k0; l < k0 + kc;) {
      const int64_t within = l % run;
      const int64_t len = std::min(run - within, k0 + kc - l);
      items[static_cast<std::size_t>(count++)] = {(l / run) * g.run_stride + within, len};
      l += len;
    }
  }
};

// C tile (kTileRows x kTileCols at c, row stride ldc) = (load ? C : 0) +
// A rows (a[r] over the segments) * B panel (packed, kTileCols per k).
void micro_kernel(const Segments& segs, const float* const* a, const float* b, float* c, int64_t ldc, bool load) {
  __m512 acc[kTileRows][kVecs];
#pragma GCC unroll 14
  for (int r = 0; r < kTileRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) acc[r][v] = load ? _mm512_loadu_ps(c + r * ldc + 16 * v) : _mm512_setzero_ps();
  }
  for (int s = 0; s < segs.count; ++s) {
    const int64_t off = segs.items[static_cast<std::size_t>(s)].offset;
    const int64_t len = segs.items[static_cast<std::size_t>(s)].len;
    for (int64_t p = 0; p < len; ++p, b += kTileCols) {
      __m512 bv[kVecs];
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
#pragma GCC unroll 14
      for (int r = 0; r < kTileRows; ++r) {
        const __m512 av = _mm512_set1_ps(a[r][off + p]);
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < kTileRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The A row pointers of row panel ip; rows past m repeat the last one (their
// results are dropped).
void panel_rows(const TileGemm& g, int64_t ip, const float** a) {
  const int64_t i0 = ip * kTileRows;
  const int64_t rows = std::min<int64_t>(kTileRows, g.m - i0);
  for (int64_t r = 0; r < kTileRows; ++r) a[r] = g.a_row(i0 + std::min(r, rows - 1));
}

// Packs B's block [k0, k0 + kc) of every column panel: panel jp at
// dst + jp * kc * kTileCols, zero past n.
void pack_block(const TileGemm& g, int64_t k0, int64_t kc, float* dst) {
  for (int64_t jp = 0; jp < ceil_div(g.n, kTileCols); ++jp) {
    const int64_t cols = std::min<int64_t>(kTileCols, g.n - jp * kTileCols);
    float* panel = dst + jp * kc * kTileCols;
    if (cols < kTileCols) std::fill(panel, panel + kc * kTileCols, 0.0f);
    g.pack_b(jp * kTileCols, cols, k0, kc, panel);
  }
}

// The row-parallel schedule: B packed whole, tasks of kPanelsPerTask row
// panels, each over all k blocks and column panels.
void by_rows(const TileGemm& g, int64_t run) {
  const int64_t col_panels = ceil_div(g.n, kTileCols);
  const int64_t row_panels = ceil_div(g.m, kTileRows);
  const int64_t k = g.k;
  const int64_t k_blocks = ceil_div(k, kKC);
  // B packed whole once: block kb of panel jp at (jp * k + k0) * kTileCols.
  const linalg::ReusedBuffer b_store(sizeof(float) * static_cast<std::size_t>(col_panels * k * kTileCols));
  float* const bp = b_store.as<float>();
  parallel_range(col_panels * k_blocks, 1, [&](int64_t begin, int64_t end) {
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
  const int64_t tasks = ceil_div(row_panels, kPanelsPerTask);
  parallel_range(tasks, 1, [&](int64_t begin, int64_t end) {
    alignas(64) float tile[kTileRows * kTileCols];
    std::vector<std::array<const float*, kTileRows>> rows_of(kPanelsPerTask);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p0 = t * kPanelsPerTask;
      const int64_t p_end = std::min(row_panels, p0 + kPanelsPerTask);
      for (int64_t ip = p0; ip < p_end; ++ip) panel_rows(g, ip, rows_of[static_cast<std::size_t>(ip - p0)].data());
      for (int64_t k0 = 0; k0 < k; k0 += kKC) {
        const int64_t kc = std::min(kKC, k - k0);
        const Segments segs(g, run, k0, kc);
        for (int64_t ip = p0; ip < p_end; ++ip) {
          const int64_t i0 = ip * kTileRows;
          const int64_t rows = std::min<int64_t>(kTileRows, g.m - i0);
          const float* const* a = rows_of[static_cast<std::size_t>(ip - p0)].data();
          for (int64_t jp = 0; jp < col_panels; ++jp) {
            const int64_t j0 = jp * kTileCols;
            const int64_t cols = std::min<int64_t>(kTileCols, g.n - j0);
            const float* b = bp + (jp * k + k0) * kTileCols;
            float* c = g.c + i0 * g.ldc + j0;
            if (rows == kTileRows && cols == kTileCols) {
              micro_kernel(segs, a, b, c, g.ldc, k0 > 0);
              continue;
            }
            // An edge tile: through a full-size scratch tile.
            if (k0 > 0) {
              for (int64_t r = 0; r < rows; ++r) std::copy(c + r * g.ldc, c + r * g.ldc + cols, tile + r * kTileCols);
            }
            micro_kernel(segs, a, b, tile, kTileCols, k0 > 0);
            for (int64_t r = 0; r < rows; ++r) std::copy(tile + r * kTileCols, tile + r * kTileCols + cols, c + r * g.ldc);
          }
        }
      }
    }
  });
}

// The k-parallel schedule: each task sums its k blocks into its own padded C
// (whole tiles only), packing B block by block; the partial Cs are added.
void by_k(const TileGemm& g, int64_t run) {
  const int64_t col_panels = ceil_div(g.n, kTileCols);
  const int64_t row_panels = ceil_div(g.m, kTileRows);
  const int64_t ldp = col_panels * kTileCols;
  const std::size_t padded = static_cast<std::size_t>(row_panels * kTileRows * ldp);
  tbb::combinable<std::vector<float>> partial([padded] { return std::vector<float>(padded, 0.0f); });
  std::vector<std::array<const float*, kTileRows>> rows_of(static_cast<std::size_t>(row_panels));
  for (int64_t ip = 0; ip < row_panels; ++ip) panel_rows(g, ip, rows_of[static_cast<std::size_t>(ip)].data());
  parallel_range(ceil_div(g.k, kKC), 1, [&](int64_t begin, int64_t end) {
    std::vector<float>& c = partial.local();
    const linalg::ReusedBuffer b_store(sizeof(float) * static_cast<std::size_t>(col_panels * kKC * kTileCols));
    float* const bp = b_store.as<float>();
    for (int64_t kb = begin; kb < end; ++kb) {
      const int64_t k0 = kb * kKC;
      const int64_t kc = std::min(kKC, g.k - k0);
      pack_block(g, k0, kc, bp);
      const Segments segs(g, run, k0, kc);
      for (int64_t ip = 0; ip < row_panels; ++ip) {
        for (int64_t jp = 0; jp < col_panels; ++jp) {
          micro_kernel(segs, rows_of[static_cast<std::size_t>(ip)].data(), bp + jp * kc * kTileCols,
                       c.data() + ip * kTileRows * ldp + jp * kTileCols, ldp, true);
        }
      }
    }
  });
  for (int64_t i = 0; i < g.m; ++i) std::fill(g.c + i * g.ldc, g.c + i * g.ldc + g.n, 0.0f);
  partial.combine_each([&](const std::vector<float>& c) {
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) g.c[i * g.ldc + j] += c[static_cast<std::size_t>(i * ldp + j)];
    }
  });
}

}  // namespace

bool tile_gemm_available() { return __builtin_cpu_supports("avx512f"); }

void tile_gemm(const TileGemm& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0) {
    for (int64_t i = 0; i < g.m; ++i) std::fill(g.c + i * g.ldc, g.c + i * g.ldc + g.n, 0.0f);
    return;
  }
  const int64_t run = g.k_run > 0 ? g.k_run : g.k;
  const int64_t workers = std::max(1, tbb::this_task_arena::max_concurrency());
  const int64_t row_panels = ceil_div(g.m, kTileRows);
  const int64_t row_tasks = ceil_div(row_panels, kPanelsPerTask);
  const int64_t k_blocks = ceil_div(g.k, kKC);
  // By k when C is small (a weight gradient: each task's partial C stays in
  // cache, B is packed a block at a time instead of whole) and k splits
  // over the cores, or when there are too few row tasks for the cores.
  const int64_t padded_c = row_panels * kTileRows * ceil_div(g.n, kTileCols) * kTileCols;
  const bool small_c = padded_c * static_cast<int64_t>(sizeof(float)) <= (int64_t{512} << 10);
  if (k_blocks >= 2 * workers && (small_c || (row_tasks < 2 * workers && k_blocks > row_tasks))) {
    by_k(g, run);
  } else {
    by_rows(g, run);
  }
}

#else

bool tile_gemm_available() { return false; }

void tile_gemm(const TileGemm&) {}

#endif

}  // namespace npu::kernels::conv
