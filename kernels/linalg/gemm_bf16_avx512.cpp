// bfloat16 GEMM on AVX512-BF16's vdpbf16ps (gemm_bf16_dot.h).
//
// Layout: vdpbf16ps multiplies the two bf16 halves of each 32-bit lane of
// its operands and adds both products to that lane's float32 accumulator.
// So A and B are packed in pairs along k: the 32-bit unit (low, high) =
// (x[2p], x[2p + 1]), an odd k padded with a zero high half.
//  - A in panels of kMR rows: [pair p][row r] -> one 32-bit unit, broadcast
//    to all lanes by the micro-kernel;
//  - B in panels of kNR columns: [pair p][column j], kNR/16 vectors per pair.
// Rows past m and columns past n are zero in the panels; the micro-kernel
// never stores them.
//
// The micro-kernel keeps a kMR x kNR float32 tile of C in 28 of the 32 zmm
// registers across a block of up to kKCP pairs (all of k up to 1024, so the
// tile is written once) and rounds it into a row-major C itself (alpha,
// beta, one rounding to bfloat16), or stores float32 for gemm.cpp to round
// into other C layouts. Both operands are packed whole once (in parallel,
// vectorized for row- and column-major operands), then oneTBB runs work
// units of (batch item, group of column panels, rows): a unit's B panels
// stay in L2 while it walks down its row panels, and each A panel slice is
// reused from L1 across the group. Measured on a 2-core Zen 5 (README,
// issue 14): the micro-kernel alone runs at 96-99% of the vdpbf16ps peak;
// a 14-row tile's rows a power-of-two stride apart in a float32 buffer
// (the previous design reloaded them per k block) cost it 10%.
#include "kernels/linalg/gemm_bf16_dot.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/core/tensor_view.h"

#if defined(__AVX512BF16__)
#include <immintrin.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace npu::kernels::linalg {

#if defined(__AVX512BF16__)

namespace {

constexpr int kMR = 14;             // rows of the micro-tile
constexpr int kNV = 2;              // zmm vectors per micro-tile row
constexpr int kNR = 16 * kNV;       // columns of the micro-tile
// k pairs per block: with k up to 2 * kKCP a tile sums all of k in its
// registers and is written once (no float32 partial sums in memory); the
// A panel slice (kKCP x kMR units, 28 KB) stays in L1 across a group's B panels.
constexpr int64_t kKCP = 512;
// Column panels per work unit: its B panels (at most kGroupBytes) stay in L2
// while the unit runs down all its rows.
constexpr int64_t kMaxGroupPanels = 4;
constexpr int64_t kGroupBytes = int64_t{256} << 10;
// How far ahead packing prefetches its source: k pairs of a lane (transposes),
// panels along a k row (interleaves).
constexpr int64_t kPrefetchPairs = 64;
constexpr int64_t kPrefetchPanels = 4;
// Products below this many multiply-adds run on the calling thread.
constexpr int64_t kSerialMacs = int64_t{1} << 20;

// Where a finished micro-tile goes: rounded to bfloat16 into C with alpha and
// beta applied (bf16 != nullptr), or as float32 into a ProductF32 buffer.
struct TileOut {
  uint16_t* bf16 = nullptr;  // C's element (row 0, column 0) of the tile
  float* f32 = nullptr;
  int64_t ld = 0;            // row stride of either, in elements
  int rows = kMR;            // valid rows and columns of the tile
  int cols = kNR;
  float alpha = 1.0f;
  float beta = 0.0f;
};

// float32 -> bfloat16 bits, rounded to nearest even, NaN to the quiet NaN
// of its sign: Eigen::bfloat16(float)'s conversion (the engine's other
// paths), vectorized. Not vcvtneps2bf16, which flushes denormals.
__m256i round_to_bf16(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i hi = _mm512_srli_epi32(bits, 16);
  const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512i qnan = _mm512_or_si512(_mm512_and_si512(hi, _mm512_set1_epi32(0x8000)), _mm512_set1_epi32(0x7fc0));
  r = _mm512_mask_mov_epi32(r, nan, qnan);
  return _mm512_cvtepi32_epi16(r);
}

__mmask16 lane_mask(int valid) {
  return valid >= 16 ? __mmask16(0xffff) : valid <= 0 ? __mmask16(0) : __mmask16((1u << valid) - 1);
}

// The first R rows (R <= kMR; fewer only in a last row panel past m) of a
// kMR x kNR float32 tile: acc = (partial ? *partial : 0) + A panel · B panel
// over `pairs` k pairs; then stored to *partial (more k blocks follow) or,
// when `last`, to `out`.
template <int R>
void micro_kernel(int64_t pairs, const uint32_t* a, const uint32_t* b, float* partial, bool load_partial, bool last,
                  const TileOut& out) {
  __m512 acc[R][kNV];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      acc[r][v] = load_partial ? _mm512_loadu_ps(partial + r * kNR + 16 * v) : _mm512_setzero_ps();
    }
  }
  for (int64_t p = 0; p < pairs; ++p) {
    __m512bh bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * kNR + 16 * v);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * kMR + r]));
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, bv[v]);
    }
  }
  if (!last) {
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) _mm512_storeu_ps(partial + r * kNR + 16 * v, acc[r][v]);
    }
    return;
  }
  __mmask16 cm[kNV];
  for (int v = 0; v < kNV; ++v) cm[v] = lane_mask(out.cols - 16 * v);
  if (out.bf16 != nullptr) {
    // gemm.cpp's rounding: R(alpha * acc) or R(fma(alpha, acc, beta * c)).
    const __m512 alpha = _mm512_set1_ps(out.alpha), beta = _mm512_set1_ps(out.beta);
    const __mmask32 row_mask = __mmask32(cm[0]) | (__mmask32(cm[1]) << 16);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      uint16_t* c = out.bf16 + r * out.ld;
      __m256i h[kNV];
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) {
        __m512 x;
        if (out.beta == 0.0f) {
          x = _mm512_mul_ps(alpha, acc[r][v]);
        } else {
          const __m512i old = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(cm[v], c + 16 * v));
          const __m512 old_f = _mm512_castsi512_ps(_mm512_slli_epi32(old, 16));
          x = _mm512_fmadd_ps(alpha, acc[r][v], _mm512_mul_ps(beta, old_f));
        }
        h[v] = round_to_bf16(x);
      }
      _mm512_mask_storeu_epi16(c, row_mask, _mm512_inserti64x4(_mm512_castsi256_si512(h[0]), h[1], 1));
    }
    return;
  }
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) _mm512_mask_storeu_ps(out.f32 + r * out.ld + 16 * v, cm[v], acc[r][v]);
  }
}

using MicroKernel = void (*)(int64_t, const uint32_t*, const uint32_t*, float*, bool, bool, const TileOut&);

template <int... Rs>
constexpr std::array<MicroKernel, sizeof...(Rs)> micro_kernels(std::integer_sequence<int, Rs...>) {
  return {&micro_kernel<Rs + 1>...};
}

// kMicroKernels[r - 1] computes r rows.
constexpr std::array<MicroKernel, kMR> kMicroKernels = micro_kernels(std::make_integer_sequence<int, kMR>{});

int64_t offset_of(int64_t idx, int64_t stride, int64_t block, int64_t block_stride) {
  return block > 0 ? (idx / block) * block_stride + (idx % block) * stride : idx * stride;
}

// One batch item of an operand seen as lanes (A's rows, B's columns) x k,
// with the offset of every lane and every k index (any strides, blocked
// layouts included).
struct LaneView {
  const uint16_t* p = nullptr;
  std::vector<int64_t> lane_off, k_off;
  bool k_unit = false;     // k_off[l] == l: pairs are contiguous 32-bit units
  bool lane_unit = false;  // lane_off[i] == i: lanes are contiguous
  bool lanes_strided = false;  // lane_off[i] == i * lane_stride (not blocked)
  bool ks_strided = false;     // k_off[l] == l * k_stride (not blocked)
  int64_t lane_stride = 0, k_stride = 0;
};

LaneView lane_view(const GemmMatrix& x, bool lanes_are_rows, int64_t lanes, int64_t k) {
  LaneView v;
  v.p = static_cast<const uint16_t*>(x.data);
  const int64_t ls = lanes_are_rows ? x.row_stride : x.col_stride;
  const int64_t lb = lanes_are_rows ? x.row_block : x.col_block;
  const int64_t lbs = lanes_are_rows ? x.row_block_stride : x.col_block_stride;
  const int64_t ks = lanes_are_rows ? x.col_stride : x.row_stride;
  const int64_t kb = lanes_are_rows ? x.col_block : x.row_block;
  const int64_t kbs = lanes_are_rows ? x.col_block_stride : x.row_block_stride;
  v.lane_off.resize(static_cast<std::size_t>(lanes));
  for (int64_t i = 0; i < lanes; ++i) v.lane_off[i] = offset_of(i, ls, lb, lbs);
  v.k_off.resize(static_cast<std::size_t>(k));
  for (int64_t l = 0; l < k; ++l) v.k_off[l] = offset_of(l, ks, kb, kbs);
  v.k_unit = kb == 0 && (ks == 1 || k <= 1);
  v.lane_unit = lb == 0 && (ls == 1 || lanes <= 1);
  v.lanes_strided = lb == 0;
  v.ks_strided = kb == 0;
  v.lane_stride = ls;
  v.k_stride = ks;
  return v;
}

// GCC 12 warns inside the unmasked AVX-512 shuffle intrinsics (their
// undefined placeholder source), as CMakeLists.txt notes for Eigen's.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
// Transposes 16 rows of 16 32-bit units in place: r[i][j] -> r[j][i].
void transpose16(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // u[4i + c]: in each 128-bit lane j, column 4j + c of rows 4i..4i+3.
  __m512i u[16];
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512i x0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
    const __m512i x1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xDD);
    const __m512i y0 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
    const __m512i y1 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xDD);
    r[c] = _mm512_shuffle_i32x4(x0, y0, 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(x0, y0, 0xDD);
    r[4 + c] = _mm512_shuffle_i32x4(x1, y1, 0x88);
    r[12 + c] = _mm512_shuffle_i32x4(x1, y1, 0xDD);
  }
}
#pragma GCC diagnostic pop

// Packs lanes [lane0, lane0 + valid) of one batch item (base offset `base`)
// into a panel of P lanes: dst[p * P + i] = (x[i][2p], x[i][2p + 1]), the
// high half 0 past k, lanes past `valid` 0.
template <int P>
void pack_panel(const LaneView& v, int64_t base, int64_t lane0, int64_t valid, int64_t k, uint32_t* dst) {
  const int64_t pairs = (k + 1) / 2;
  const int64_t full = k / 2;
  const uint16_t* const src = v.p + base;
  constexpr int kGroups = (P + 15) / 16;
  if (v.k_unit && v.lanes_strided) {
    // Each lane's pairs are contiguous 32-bit units: 16 x 16 transposes.
    int64_t p = 0;
    for (; p + 16 <= full; p += 16) {
      for (int g = 0; g < kGroups; ++g) {
        __m512i r[16];
        for (int i = 0; i < 16; ++i) {
          const int64_t lane = g * 16 + i;
          if (lane >= valid) {
            r[i] = _mm512_setzero_si512();
            continue;
          }
          const uint16_t* row = src + (lane0 + lane) * v.lane_stride + 2 * p;
          // The operand is usually out of the caches: fetch kPrefetchPairs ahead.
          if (p + 16 + kPrefetchPairs <= full) _mm_prefetch(reinterpret_cast<const char*>(row + 2 * kPrefetchPairs), _MM_HINT_T0);
          r[i] = _mm512_loadu_si512(row);
        }
        transpose16(r);
        const __mmask16 m = lane_mask(P - g * 16);
        for (int q = 0; q < 16; ++q) _mm512_mask_storeu_epi32(dst + (p + q) * P + g * 16, m, r[q]);
      }
    }
    for (int64_t i = 0; i < P; ++i) {
      uint32_t* d = dst + i;
      if (i >= valid) {
        for (int64_t q = p; q < pairs; ++q) d[q * P] = 0;
        continue;
      }
      const uint16_t* s = src + (lane0 + i) * v.lane_stride;
      for (int64_t q = p; q < full; ++q) {
        uint32_t u;
        std::memcpy(&u, s + 2 * q, sizeof u);
        d[q * P] = u;
      }
      if (k & 1) d[full * P] = s[k - 1];
    }
    return;
  }
  // Any other layout (blocked, both strides non-unit): element by element.
  for (int64_t p = 0; p < pairs; ++p) {
    uint32_t* d = dst + p * P;
    const bool has_hi = 2 * p + 1 < k;
    const int64_t o0 = v.k_off[2 * p];
    const int64_t o1 = has_hi ? v.k_off[2 * p + 1] : 0;
    for (int64_t i = 0; i < valid; ++i) {
      const uint16_t* s = src + v.lane_off[lane0 + i];
      d[i] = uint32_t{s[o0]} | (has_hi ? uint32_t{s[o1]} << 16 : 0u);
    }
    for (int64_t i = valid; i < P; ++i) d[i] = 0;
  }
}

// Lanes contiguous (row-major B, transposed A): packs k pairs [p0, p1) of
// all lanes of one batch item into every panel of P lanes (panel_units apart
// in dst), interleaving two k rows 16 lanes at a time. The run's rows
// (2 kPairRun of them) stay in L1 while panel after panel is written as one
// contiguous piece: a panel at a time down all of k would fetch a new cache
// line per k row, and a pair at a time across all panels would write
// panel_units apart, a power of two that puts every write in one L1 set.
template <int P>
void pack_pairs(const LaneView& v, int64_t base, int64_t lanes, int64_t k, int64_t p0, int64_t p1, int64_t panel_units,
                uint32_t* dst) {
  constexpr int kGroups = (P + 15) / 16;
  const int64_t panels = (lanes + P - 1) / P;
  const uint16_t* const src = v.p + base;
  for (int64_t panel = 0; panel < panels; ++panel) {
    for (int64_t p = p0; p < p1; ++p) {
      const uint16_t* r0 = src + 2 * p * v.k_stride;
      const uint16_t* r1 = r0 + v.k_stride;
      const bool has_hi = 2 * p + 1 < k;
      // The operand is usually out of the caches: fetch kPrefetchPanels ahead.
      if (panel + kPrefetchPanels < panels) {
        _mm_prefetch(reinterpret_cast<const char*>(r0 + (panel + kPrefetchPanels) * P), _MM_HINT_T0);
        if (has_hi) _mm_prefetch(reinterpret_cast<const char*>(r1 + (panel + kPrefetchPanels) * P), _MM_HINT_T0);
      }
      uint32_t* d = dst + panel * panel_units + p * P;
      const int64_t valid = std::min<int64_t>(P, lanes - panel * P);
      for (int g = 0; g < kGroups; ++g) {
        const int64_t lane = panel * P + 16 * g;
        const __mmask16 m = lane_mask(static_cast<int>(valid - 16 * g));
        __m512i u;
        if (m == 0xffff && P - 16 * g >= 16) {
          const __m512i lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r0 + lane)));
          u = lo;
          if (has_hi) {
            const __m512i hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r1 + lane)));
            u = _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
          }
          _mm512_storeu_si512(d + 16 * g, u);
          continue;
        }
        const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r0 + lane));
        u = lo;
        if (has_hi) {
          const __m512i hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r1 + lane));
          u = _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
        }
        _mm512_mask_storeu_epi32(d + 16 * g, lane_mask(P - 16 * g), u);
      }
    }
  }
}

// Packs one operand (every stored batch item) into panels of P lanes, cut
// into jobs for the workers: runs of k pairs across all panels when lanes
// are contiguous (pack_pairs), else single panels (pack_panel).
template <int P>
struct Packer {
  static constexpr int64_t kPairRun = 8;  // k pairs per job of pack_pairs (16 rows stay in L1)

  const LaneView* v;
  int64_t items, batch_stride, lanes, k;
  uint32_t* dst;

  int64_t pairs() const { return (k + 1) / 2; }
  int64_t panels() const { return (lanes + P - 1) / P; }
  int64_t panel_units() const { return pairs() * P; }
  bool by_pairs() const { return v->lane_unit && v->ks_strided && !v->k_unit; }
  int64_t jobs_per_item() const { return by_pairs() ? (pairs() + kPairRun - 1) / kPairRun : panels(); }
  int64_t jobs() const { return items * jobs_per_item(); }

  void run(int64_t job) const {
    const int64_t item = job / jobs_per_item(), j = job % jobs_per_item();
    uint32_t* const d = dst + item * panels() * panel_units();
    if (by_pairs()) {
      pack_pairs<P>(*v, item * batch_stride, lanes, k, j * kPairRun, std::min(pairs(), (j + 1) * kPairRun),
                    panel_units(), d);
    } else {
      pack_panel<P>(*v, item * batch_stride, j * P, std::min<int64_t>(P, lanes - j * P), k, d + j * panel_units());
    }
  }
};

// Runs f(0) ... f(count - 1), on oneTBB's workers when `parallel`.
template <class F>
void run_range(int64_t count, bool parallel, const F& f) {
  if (!parallel || count <= 1) {
    for (int64_t t = 0; t < count; ++t) f(t);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, count, 1),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t t = r.begin(); t < r.end(); ++t) f(t);
                    },
                    tbb::simple_partitioner());
}

bool cpu_has_bf16_dot() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
  return has;
}

// Where the product goes: C itself (bf16, with alpha and beta) or float32.
struct Destination {
  uint16_t* c = nullptr;  // bf16 C, row-major with unit column stride
  int64_t c_row_stride = 0, c_batch_stride = 0;
  float alpha = 1.0f, beta = 0.0f;
  float* f32 = nullptr;  // else the float32 product
  int64_t f_row_stride = 0, f_batch_stride = 0;
};

// The product of every batch item: packs A and B into k-pair panels (in
// parallel), then runs work units of (batch item, group of column panels,
// rows) on oneTBB's workers. A unit keeps its group's B panels in L2 and
// walks down its row panels; each A panel slice is reused from L1 across the
// group's columns; a tile sums one k block in registers (all of k when
// k <= 2 kKCP) and goes to the destination once.
void run_product(const GemmArgs& g, const Destination& dst) {
  const int64_t m = g.m, n = g.n, k = g.k, batch = g.batch;
  const int64_t pairs = (k + 1) / 2;
  const int64_t m_panels = (m + kMR - 1) / kMR, n_panels = (n + kNR - 1) / kNR;
  const int64_t a_items = g.a.batch_stride == 0 ? 1 : batch;
  const int64_t b_items = g.b.batch_stride == 0 ? 1 : batch;
  const bool parallel = static_cast<double>(batch) * m * n * k >= kSerialMacs;
  const int64_t workers = parallel ? std::max(1, tbb::this_task_arena::max_concurrency()) : 1;

  const LaneView av = lane_view(g.a, true, m, k);
  const LaneView bv = lane_view(g.b, false, n, k);
  const int64_t a_panel = pairs * kMR, b_panel = pairs * kNR;  // 32-bit units per panel
  // Uninitialized: pack_panel writes every unit, padding included.
  const ReusedBuffer a_store(sizeof(uint32_t) * a_items * m_panels * a_panel);
  const ReusedBuffer b_store(sizeof(uint32_t) * b_items * n_panels * b_panel);
  uint32_t* const ap = a_store.as<uint32_t>();
  uint32_t* const bp = b_store.as<uint32_t>();
  const Packer<kMR> a_pack{&av, a_items, g.a.batch_stride, m, k, ap};
  const Packer<kNR> b_pack{&bv, b_items, g.b.batch_stride, n, k, bp};
  const int64_t a_jobs = a_pack.jobs(), jobs = a_jobs + b_pack.jobs();
  // A few chunks of consecutive jobs per worker: one task each.
  const int64_t pack_chunks = std::min(jobs, 4 * workers);
  run_range(pack_chunks, parallel, [&](int64_t chunk) {
    for (int64_t t = chunk * jobs / pack_chunks; t < (chunk + 1) * jobs / pack_chunks; ++t) {
      if (t < a_jobs) {
        a_pack.run(t);
      } else {
        b_pack.run(t - a_jobs);
      }
    }
  });

  // Work units: groups of column panels whose B fits kGroupBytes, rows cut
  // so that there are at least 2 units per worker.
  const int64_t kc = std::min(kKCP, pairs);
  const int64_t group_panels =
      std::clamp<int64_t>(kGroupBytes / (sizeof(uint32_t) * b_panel), 1, kMaxGroupPanels);
  const int64_t groups = (n_panels + group_panels - 1) / group_panels;
  const int64_t per_rows = batch * groups;
  const int64_t row_cuts = std::clamp<int64_t>((2 * workers + per_rows - 1) / per_rows, 1, m_panels);
  const int64_t units = per_rows * row_cuts;
  run_range(units, parallel, [&](int64_t t) {
    const int64_t item = t / (groups * row_cuts);
    const int64_t grp = (t / row_cuts) % groups, cut = t % row_cuts;
    const int64_t j0 = grp * group_panels, j1 = std::min(n_panels, j0 + group_panels);
    const int64_t i0 = cut * m_panels / row_cuts, i1 = (cut + 1) * m_panels / row_cuts;
    const uint32_t* a_item = ap + (a_items == 1 ? 0 : item) * m_panels * a_panel;
    const uint32_t* b_item = bp + (b_items == 1 ? 0 : item) * n_panels * b_panel;
    // Partial sums of the group's tiles between k blocks (k > 2 kKCP only).
    alignas(64) float partial[kMaxGroupPanels][kMR * kNR];
    TileOut out;
    out.alpha = dst.alpha;
    out.beta = dst.beta;
    out.ld = dst.c != nullptr ? dst.c_row_stride : dst.f_row_stride;
    for (int64_t ip = i0; ip < i1; ++ip) {
      out.rows = static_cast<int>(std::min<int64_t>(kMR, m - ip * kMR));
      const MicroKernel kernel = kMicroKernels[out.rows - 1];
      for (int64_t p0 = 0; p0 < pairs; p0 += kc) {
        const int64_t len = std::min(kc, pairs - p0);
        const bool last = p0 + len == pairs;
        const uint32_t* a_slice = a_item + ip * a_panel + p0 * kMR;
        for (int64_t jp = j0; jp < j1; ++jp) {
          out.cols = static_cast<int>(std::min<int64_t>(kNR, n - jp * kNR));
          if (dst.c != nullptr) {
            out.bf16 = dst.c + item * dst.c_batch_stride + ip * kMR * dst.c_row_stride + jp * kNR;
          } else {
            out.f32 = dst.f32 + item * dst.f_batch_stride + ip * kMR * dst.f_row_stride + jp * kNR;
          }
          kernel(len, a_slice, b_item + jp * b_panel + p0 * kNR, partial[jp - j0], p0 > 0, last, out);
        }
      }
    }
  });
}

}  // namespace

bool bf16_dot_available() { return cpu_has_bf16_dot(); }

bool bf16_dot_chosen(const GemmArgs& g) {
  // Tiles of kMR x kNR: a thinner product would mostly multiply padding.
  return g.dtype == model::DType::BFloat16 && g.batch >= 1 && !(g.reduce_batch && g.batch != 1) && g.m >= 8 &&
         g.n >= 16 && g.k >= 1 && bf16_dot_available();
}

bool bf16_dot_writes_c(const GemmArgs& g) {
  return bf16_dot_chosen(g) && g.c.col_block == 0 && g.c.row_block == 0 && (g.c.col_stride == 1 || g.n <= 1);
}

void bf16_dot_gemm(const GemmArgs& g) {
  Destination d;
  d.c = static_cast<uint16_t*>(g.c.data);
  d.c_row_stride = g.c.row_stride;
  d.c_batch_stride = g.reduce_batch ? 0 : g.c.batch_stride;
  d.alpha = static_cast<float>(g.alpha.real());
  d.beta = static_cast<float>(g.beta.real());
  run_product(g, d);
}

ProductF32 bf16_dot_product(const GemmArgs& g) {
  const int64_t m_panels = (g.m + kMR - 1) / kMR, n_panels = (g.n + kNR - 1) / kNR;
  ProductF32 out;
  // Padded by one cache line: a power-of-two row stride would put a tile's
  // rows in one L1 set.
  out.row_stride = n_panels * kNR + 16;
  out.batch_stride = m_panels * kMR * out.row_stride;
  // Uninitialized: every element of the product is written.
  out.storage = ReusedBuffer(sizeof(float) * g.batch * out.batch_stride);
  out.data = out.storage.as<float>();
  Destination d;
  d.f32 = out.data;
  d.f_row_stride = out.row_stride;
  d.f_batch_stride = out.batch_stride;
  run_product(g, d);
  return out;
}

#else  // !__AVX512BF16__: the engine keeps its float32 path.

bool bf16_dot_available() { return false; }

bool bf16_dot_chosen(const GemmArgs&) { return false; }

bool bf16_dot_writes_c(const GemmArgs&) { return false; }

void bf16_dot_gemm(const GemmArgs&) {
  throw KernelError("gemm: the bfloat16 dot-product kernel was not compiled (needs a compiler targeting AVX512-BF16)");
}

ProductF32 bf16_dot_product(const GemmArgs&) {
  throw KernelError("gemm: the bfloat16 dot-product kernel was not compiled (needs a compiler targeting AVX512-BF16)");
}

#endif

}  // namespace npu::kernels::linalg
