// bfloat16 GEMM on AVX512-BF16's vdpbf16ps (gemm_bf16_dot.h).
//
// Layout: vdpbf16ps multiplies the two bf16 halves of each 32-bit lane of
// its operands and adds both products to that lane's float32 accumulator.
// So A and B are packed in pairs along k: the 32-bit unit (low, high) =
// (x[2p], x[2p + 1]), an odd k padded with a zero high half.
//  - A in panels of kMR rows: [pair p][row r] -> one 32-bit unit, broadcast
//    to all lanes by the micro-kernel;
//  - B in panels of kNR columns: [pair p][column j], kNR/16 vectors per pair.
// Rows past m and columns past n are zero in the panels and land in the
// padding of the float32 result, which the caller never reads.
//
// The micro-kernel keeps a kMR x kNR float32 tile of C in 28 of the 32 zmm
// registers across a block of kKCP pairs. Both operands are packed whole
// once (in parallel), then oneTBB runs tasks of kMCPanels x kNCPanels
// micro-tiles of one batch item; inside a task the loops run k block, then
// column panel (its B slice, kKCP x kNR, stays in L1), then row panel.
#include "kernels/linalg/gemm_bf16_dot.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/core/tensor_view.h"

#if defined(__AVX512BF16__)
#include <immintrin.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#endif

namespace npu::kernels::linalg {

#if defined(__AVX512BF16__)

namespace {

constexpr int kMR = 14;             // rows of the micro-tile
constexpr int kNV = 2;              // zmm vectors per micro-tile row
constexpr int kNR = 16 * kNV;       // columns of the micro-tile
constexpr int64_t kKCP = 128;       // k pairs per block (B slice 16 KB)
constexpr int64_t kMCPanels = 8;    // row panels per task
constexpr int64_t kNCPanels = 8;    // column panels per task
// Products below this many multiply-adds run on the calling thread.
constexpr int64_t kSerialMacs = int64_t{1} << 20;

// acc (kMR x kNR at c, row stride ldc) = (load_c ? acc : 0) + A panel · B panel
// over `pairs` k pairs.
void micro_kernel(int64_t pairs, const uint32_t* a, const uint32_t* b, float* c, int64_t ldc, bool load_c) {
  __m512 acc[kMR][kNV];
#pragma GCC unroll 14
  for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[r][v] = load_c ? _mm512_loadu_ps(c + r * ldc + 16 * v) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < pairs; ++p) {
    __m512bh bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * kNR + 16 * v);
#pragma GCC unroll 14
    for (int r = 0; r < kMR; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * kMR + r]));
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, bv[v]);
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
  }
}

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
  return v;
}

// Packs lanes [lane0, lane0 + valid) of one batch item (base offset `base`)
// into a panel of P lanes: dst[p * P + i] = (x[i][2p], x[i][2p + 1]).
template <int P>
void pack_panel(const LaneView& v, int64_t base, int64_t lane0, int64_t valid, int64_t k, uint32_t* dst) {
  const int64_t pairs = (k + 1) / 2;
  const int64_t full = k / 2;
  const uint16_t* const src = v.p + base;
  if (v.k_unit) {
    // Each lane's pairs are contiguous 32-bit units: a transpose.
    for (int64_t i = 0; i < P; ++i) {
      uint32_t* d = dst + i;
      if (i >= valid) {
        for (int64_t p = 0; p < pairs; ++p) d[p * P] = 0;
        continue;
      }
      const uint16_t* s = src + v.lane_off[lane0 + i];
      for (int64_t p = 0; p < full; ++p) {
        uint32_t u;
        std::memcpy(&u, s + 2 * p, sizeof u);
        d[p * P] = u;
      }
      if (k & 1) d[full * P] = s[k - 1];
    }
    return;
  }
  for (int64_t p = 0; p < pairs; ++p) {
    uint32_t* d = dst + p * P;
    const bool has_hi = 2 * p + 1 < k;
    if (v.lane_unit) {
      // Lanes contiguous: interleave two k rows (a loop the compiler vectorizes).
      const uint16_t* r0 = src + v.k_off[2 * p] + lane0;
      const uint16_t* r1 = has_hi ? src + v.k_off[2 * p + 1] + lane0 : nullptr;
      if (has_hi) {
        for (int64_t i = 0; i < valid; ++i) d[i] = uint32_t{r0[i]} | (uint32_t{r1[i]} << 16);
      } else {
        for (int64_t i = 0; i < valid; ++i) d[i] = r0[i];
      }
    } else {
      const int64_t o0 = v.k_off[2 * p];
      const int64_t o1 = has_hi ? v.k_off[2 * p + 1] : 0;
      for (int64_t i = 0; i < valid; ++i) {
        const uint16_t* s = src + v.lane_off[lane0 + i];
        d[i] = uint32_t{s[o0]} | (has_hi ? uint32_t{s[o1]} << 16 : 0u);
      }
    }
    for (int64_t i = valid; i < P; ++i) d[i] = 0;
  }
}

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

}  // namespace

bool bf16_dot_available() { return cpu_has_bf16_dot(); }

bool bf16_dot_chosen(const GemmArgs& g) {
  // Tiles of kMR x kNR: a thinner product would mostly multiply padding.
  return g.dtype == model::DType::BFloat16 && g.batch >= 1 && !(g.reduce_batch && g.batch != 1) && g.m >= 8 &&
         g.n >= 16 && g.k >= 1 && bf16_dot_available();
}

ProductF32 bf16_dot_product(const GemmArgs& g) {
  const int64_t m = g.m, n = g.n, k = g.k, batch = g.batch;
  const int64_t pairs = (k + 1) / 2;
  const int64_t m_panels = (m + kMR - 1) / kMR, n_panels = (n + kNR - 1) / kNR;
  const int64_t a_items = g.a.batch_stride == 0 ? 1 : batch;
  const int64_t b_items = g.b.batch_stride == 0 ? 1 : batch;
  const bool parallel = static_cast<double>(batch) * m * n * k >= kSerialMacs;

  const LaneView av = lane_view(g.a, true, m, k);
  const LaneView bv = lane_view(g.b, false, n, k);
  const int64_t a_panel = pairs * kMR, b_panel = pairs * kNR;  // 32-bit units per panel
  // Uninitialized: pack_panel writes every unit, padding included.
  const ReusedBuffer a_store(sizeof(uint32_t) * a_items * m_panels * a_panel);
  const ReusedBuffer b_store(sizeof(uint32_t) * b_items * n_panels * b_panel);
  uint32_t* const ap = a_store.as<uint32_t>();
  uint32_t* const bp = b_store.as<uint32_t>();
  const int64_t a_jobs = a_items * m_panels;
  run_range(a_jobs + b_items * n_panels, parallel, [&](int64_t t) {
    if (t < a_jobs) {
      const int64_t item = t / m_panels, panel = t % m_panels;
      pack_panel<kMR>(av, item * g.a.batch_stride, panel * kMR, std::min<int64_t>(kMR, m - panel * kMR), k,
                      ap + t * a_panel);
    } else {
      const int64_t u = t - a_jobs;
      const int64_t item = u / n_panels, panel = u % n_panels;
      pack_panel<kNR>(bv, item * g.b.batch_stride, panel * kNR, std::min<int64_t>(kNR, n - panel * kNR), k,
                      bp + u * b_panel);
    }
  });

  ProductF32 out;
  out.row_stride = n_panels * kNR;
  out.batch_stride = m_panels * kMR * out.row_stride;
  // Uninitialized: the first k block of every micro-tile stores without loading.
  out.storage = ReusedBuffer(sizeof(float) * batch * out.batch_stride);
  out.data = out.storage.as<float>();
  const int64_t row_tasks = (m_panels + kMCPanels - 1) / kMCPanels;
  const int64_t col_tasks = (n_panels + kNCPanels - 1) / kNCPanels;
  run_range(batch * row_tasks * col_tasks, parallel, [&](int64_t t) {
    const int64_t item = t / (row_tasks * col_tasks);
    const int64_t rt = (t / col_tasks) % row_tasks, ct = t % col_tasks;
    const uint32_t* a_item = ap + (a_items == 1 ? 0 : item) * m_panels * a_panel;
    const uint32_t* b_item = bp + (b_items == 1 ? 0 : item) * n_panels * b_panel;
    float* c_item = out.data + item * out.batch_stride;
    const int64_t i_end = std::min(m_panels, (rt + 1) * kMCPanels);
    const int64_t j_end = std::min(n_panels, (ct + 1) * kNCPanels);
    for (int64_t p0 = 0; p0 < pairs; p0 += kKCP) {
      const int64_t len = std::min(kKCP, pairs - p0);
      for (int64_t jp = ct * kNCPanels; jp < j_end; ++jp) {
        const uint32_t* b_slice = b_item + jp * b_panel + p0 * kNR;
        for (int64_t ip = rt * kMCPanels; ip < i_end; ++ip) {
          micro_kernel(len, a_item + ip * a_panel + p0 * kMR, b_slice,
                       c_item + ip * kMR * out.row_stride + jp * kNR, out.row_stride, p0 > 0);
        }
      }
    }
  });
  return out;
}

#else  // !__AVX512BF16__: the engine keeps its float32 path.

bool bf16_dot_available() { return false; }

bool bf16_dot_chosen(const GemmArgs&) { return false; }

ProductF32 bf16_dot_product(const GemmArgs&) {
  throw KernelError("gemm: the bfloat16 dot-product kernel was not compiled (needs a compiler targeting AVX512-BF16)");
}

#endif

}  // namespace npu::kernels::linalg
