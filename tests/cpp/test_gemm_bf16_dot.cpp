// The bfloat16 GEMM on AVX512-BF16's dot-product instruction
// (kernels/linalg/gemm_bf16_avx512.cpp), through gemm() so alpha/beta and
// the single rounding to bfloat16 are covered too, against a float64
// reference of the same bf16 inputs, and bit for bit against the
// instruction's own pair sums. Shapes are chosen against the kernel's
// blocking (14 x 32 micro-tiles, k in blocks of 1024, work units of up to
// 4 column panels): m, n not multiples of the tiles, odd k, k across blocks
// (the bit-exact case), several units and batch items; operands transposed, strided, blocked
// (FRACTAL_NZ-like) and broadcast; C row-, column-major and strided with
// beta != 0. Skipped (with a message) on CPUs without AVX512-BF16, where
// gemm() never runs this kernel.
//
// Tolerance: the kernel accumulates exact bf16 products in float32, so its
// float32 sum v = alpha * sum_l a b + beta * c is within
// e = (k + 2) * 2^-24 * S of the exact value w, S = |alpha| sum_l |a b| +
// |beta c|; rounding v to bf16 adds at most 2^-9 |v|. So
// |got - w| <= 2^-8 |w| + 2 e (a wrong pairing or a lost k pair is off by
// whole products, far beyond this); with addbmm's reduced batch, one bf16
// rounding per item, bounded by 2^-8 S each.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <immintrin.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/gemm_bf16_dot.h"

#include "gemm_test_support.h"

using npu::kernels::bfloat16;
using npu::kernels::linalg::GemmArgs;
using npu::kernels::linalg::GemmMatrix;

namespace {

enum class Layout { Row, Col, Strided, Blocked };

// A batch of rows x cols bf16 matrices in one of the layouts, with the
// logical values (as double) for the reference.
struct Operand {
  std::vector<bfloat16> storage;
  GemmMatrix g;
  std::vector<double> values;  // [batch][rows][cols]
  std::function<int64_t(int64_t, int64_t, int64_t)> offset;  // (b, i, j) -> element index
};

Operand make(int64_t batches, int64_t rows, int64_t cols, Layout layout, bool broadcast, std::mt19937& rng) {
  Operand o;
  const int64_t stored = broadcast ? 1 : batches;
  int64_t span = rows * cols;
  switch (layout) {
    case Layout::Row: o.g = {nullptr, cols, 1}; break;
    case Layout::Col: o.g = {nullptr, 1, rows}; break;
    case Layout::Strided: o.g = {nullptr, 3 * cols + 1, 3}; span = rows * (3 * cols + 1); break;
    case Layout::Blocked: {
      // Columns in blocks of 16, each block [rows padded to 16][16].
      const int64_t rows_padded = (rows + 15) / 16 * 16;
      o.g = {nullptr, 16, 1, 0, 0, 0, 16, rows_padded * 16};
      span = (cols + 15) / 16 * rows_padded * 16;
      break;
    }
  }
  o.g.batch_stride = broadcast ? 0 : span;
  o.storage.assign(static_cast<std::size_t>(stored * span), bfloat16(-1000.0f));
  o.g.data = o.storage.data();
  const GemmMatrix g = o.g;
  o.offset = [g](int64_t b, int64_t i, int64_t j) {
    const int64_t col = g.col_block > 0 ? (j / g.col_block) * g.col_block_stride + (j % g.col_block) * g.col_stride
                                        : j * g.col_stride;
    return b * g.batch_stride + i * g.row_stride + col;
  };
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t b = 0; b < stored; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) o.storage[o.offset(b, i, j)] = bfloat16(dist(rng));
    }
  }
  o.values.resize(static_cast<std::size_t>(batches * rows * cols));
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        o.values[(b * rows + i) * cols + j] = static_cast<float>(o.storage[o.offset(broadcast ? 0 : b, i, j)]);
      }
    }
  }
  return o;
}

struct Case {
  int64_t batch, m, n, k;
  Layout la, lb, lc;
  bool bcast_b = false;
  bool reduce = false;
  double alpha = 1.0, beta = 0.0;
};

void check(const Case& c) {
  std::mt19937 rng(static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k));
  const Operand a = make(c.batch, c.m, c.k, c.la, false, rng);
  const Operand b = make(c.batch, c.k, c.n, c.lb, c.bcast_b, rng);
  const int64_t c_batches = c.reduce ? 1 : c.batch;
  Operand out = make(c_batches, c.m, c.n, c.lc, false, rng);
  GemmArgs g = gemm_test::product(npu::model::DType::BFloat16, c.m, c.n, c.k, a.g, b.g, out.g, c.batch);
  g.alpha = c.alpha;
  g.beta = c.beta;
  g.reduce_batch = c.reduce;
  GemmArgs item = g;
  if (c.reduce) item.batch = 1;  // gemm() runs addbmm item by item
  REQUIRE(npu::kernels::linalg::bf16_dot_chosen(item));
  npu::kernels::linalg::gemm(g);

  for (int64_t bi = 0; bi < c_batches; ++bi) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double want = c.beta * out.values[(bi * c.m + i) * c.n + j];
        double scale = std::abs(want);
        for (int64_t item_b = c.reduce ? 0 : bi; item_b < (c.reduce ? c.batch : bi + 1); ++item_b) {
          double dot = 0, mag = 0;
          for (int64_t l = 0; l < c.k; ++l) {
            const double p = a.values[(item_b * c.m + i) * c.k + l] * b.values[(item_b * c.k + l) * c.n + j];
            dot += p;
            mag += std::abs(p);
          }
          want += c.alpha * dot;
          scale += std::abs(c.alpha) * mag;
        }
        const double got = static_cast<float>(out.storage[out.offset(bi, i, j)]);
        // reduce_batch (addbmm) rounds C to bf16 after each item: a rounding
        // of at most 2^-9 of the partial sums (bounded by scale) per item.
        const double rounding = c.reduce ? c.batch * std::ldexp(1.0, -8) * scale : std::ldexp(1.0, -8) * std::abs(want);
        const double tol = rounding + 2.0 * (c.k + 2) * std::ldexp(1.0, -24) * scale;
        INFO("b " << bi << " i " << i << " j " << j << " want " << want << " got " << got << " tol " << tol);
        REQUIRE(std::abs(got - want) <= tol);
      }
    }
  }
}

}  // namespace

TEST_CASE("bfloat16 gemm on the AVX512-BF16 kernel matches a float64 reference", "[gemm][bf16dot]") {
  if (!npu::kernels::linalg::bf16_dot_available()) {
    WARN("skipped: this build or CPU has no AVX512-BF16, gemm() takes the float32 path for bfloat16");
    return;
  }
  // One micro-tile with padding in every direction, odd k.
  check({1, 9, 17, 1, Layout::Row, Layout::Row, Layout::Row});
  check({1, 13, 31, 29, Layout::Row, Layout::Row, Layout::Row, false, false, 1.0, 0.5});
  // Odd m, n, k across k blocks, every operand layout, C written through
  // strides with beta != 0.
  for (const Layout la : {Layout::Row, Layout::Col, Layout::Strided, Layout::Blocked}) {
    for (const Layout lb : {Layout::Row, Layout::Col, Layout::Strided}) {
      for (const Layout lc : {Layout::Row, Layout::Col, Layout::Strided}) {
        check({1, 37, 45, 263, la, lb, lc, false, false, -1.5, 0.75});
      }
    }
  }
  // Several tasks (more than 8 x 8 micro-tiles) on all workers, batch items
  // with a broadcast B, and addbmm's reduced batch.
  check({1, 300, 290, 517, Layout::Row, Layout::Col, Layout::Row, false, false, 2.0, -1.0});
  check({3, 117, 70, 45, Layout::Col, Layout::Row, Layout::Row, true, false, 1.0, 1.0});
  check({3, 40, 50, 33, Layout::Row, Layout::Strided, Layout::Col, false, true, 0.5, 2.0});
}

TEST_CASE("bfloat16 gemm on the AVX512-BF16 kernel ignores C with beta 0", "[gemm][bf16dot]") {
  if (!npu::kernels::linalg::bf16_dot_available()) {
    WARN("skipped: this build or CPU has no AVX512-BF16, gemm() takes the float32 path for bfloat16");
    return;
  }
  const int64_t m = 20, n = 40, k = 7;
  std::vector<bfloat16> a(m * k, bfloat16(1.0f)), b(k * n, bfloat16(0.5f));
  std::vector<bfloat16> c(m * n, bfloat16(std::numeric_limits<float>::quiet_NaN()));
  const GemmArgs g = gemm_test::product(npu::model::DType::BFloat16, m, n, k, {a.data(), k, 1, 0},
                                        {b.data(), n, 1, 0}, {c.data(), n, 1, 0});
  REQUIRE(npu::kernels::linalg::bf16_dot_chosen(g));
  npu::kernels::linalg::gemm(g);
  for (const bfloat16 v : c) REQUIRE(static_cast<float>(v) == 3.5f);
}

// The zero padding (odd k's last pair, rows past m, columns past n) is
// padded on both operands, so an infinity next to it gives inf, never the
// NaN of inf * 0: the mathematical result, not an ISA-dependent one.
TEST_CASE("bfloat16 gemm on the AVX512-BF16 kernel keeps infinities next to its padding", "[gemm][bf16dot]") {
  if (!npu::kernels::linalg::bf16_dot_available()) {
    WARN("skipped: this build or CPU has no AVX512-BF16, gemm() takes the float32 path for bfloat16");
    return;
  }
  const int64_t m = 15, n = 33, k = 5;  // one row and one column past a tile, odd k
  const float inf = std::numeric_limits<float>::infinity();
  for (const bool b_transposed : {false, true}) {
    std::vector<bfloat16> a(m * k, bfloat16(1.0f)), b(k * n, bfloat16(2.0f)), c(m * n);
    a[(m - 1) * k + (k - 1)] = bfloat16(inf);  // last row, last (unpaired) k
    const auto b_at = [&](int64_t l, int64_t j) -> bfloat16& { return b_transposed ? b[j * k + l] : b[l * n + j]; };
    b_at(k - 1, n - 1) = bfloat16(-inf);  // last column, last k
    const GemmArgs g = gemm_test::product(
        npu::model::DType::BFloat16, m, n, k, {a.data(), k, 1, 0},
        b_transposed ? GemmMatrix{b.data(), 1, k, 0} : GemmMatrix{b.data(), n, 1, 0}, {c.data(), n, 1, 0});
    REQUIRE(npu::kernels::linalg::bf16_dot_chosen(g));
    npu::kernels::linalg::gemm(g);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float got = static_cast<float>(c[i * n + j]);
        INFO("b_transposed " << b_transposed << " i " << i << " j " << j << " got " << got);
        if (i == m - 1 && j == n - 1) {
          REQUIRE(got == -inf);  // the same k: inf * -inf
        } else if (i == m - 1) {
          REQUIRE(got == inf);
        } else if (j == n - 1) {
          REQUIRE(got == -inf);
        } else {
          REQUIRE(got == 2.0f * k);
        }
      }
    }
  }
}

namespace {

// The kernel's arithmetic for one element, written the plainest way: k's
// pairs (2p, 2p + 1) (the last one (k - 1, 0) for odd k) summed in order
// into a float32 by the same instruction, starting from 0. Any blocking,
// threading or epilogue of the kernel must give exactly this sum.
__attribute__((target("avx512f,avx512bf16"))) float pair_sum(const std::vector<uint32_t>& a,
                                                             const std::vector<uint32_t>& b) {
  __m512 acc = _mm512_setzero_ps();
  for (std::size_t p = 0; p < a.size(); ++p) {
    acc = _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p])),
                           (__m512bh)_mm512_set1_epi32(static_cast<int>(b[p])));
  }
  return _mm512_cvtss_f32(acc);
}

uint16_t bits_of(bfloat16 v) {
  uint16_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// gemm() against pair_sum rounded once, bit for bit: R(alpha * acc), or
// R(fma(alpha, acc, beta * c)) with beta != 0 (the engine's rounding).
void check_bits(const Case& c) {
  std::mt19937 rng(static_cast<unsigned>(c.m * 7 + c.n * 3 + c.k));
  const Operand a = make(c.batch, c.m, c.k, c.la, false, rng);
  const Operand b = make(c.batch, c.k, c.n, c.lb, c.bcast_b, rng);
  Operand out = make(c.batch, c.m, c.n, c.lc, false, rng);
  const Operand before = out;
  GemmArgs g = gemm_test::product(npu::model::DType::BFloat16, c.m, c.n, c.k, a.g, b.g, out.g, c.batch);
  g.alpha = c.alpha;
  g.beta = c.beta;
  REQUIRE(npu::kernels::linalg::bf16_dot_chosen(g));
  npu::kernels::linalg::gemm(g);

  const int64_t pairs = (c.k + 1) / 2;
  const auto unit = [&](const Operand& x, int64_t bi, int64_t i, int64_t j, bool along_rows) {
    // (k index 2p, 2p + 1) of row i (A) or column j (B) as one 32-bit unit.
    const auto at = [&](int64_t l) -> uint32_t {
      if (l >= c.k) return 0;
      return bits_of(x.storage[along_rows ? x.offset(bi, i, l) : x.offset(bi, l, j)]);
    };
    const int64_t p = along_rows ? j : i;
    return at(2 * p) | (at(2 * p + 1) << 16);
  };
  std::vector<uint32_t> a_units(static_cast<std::size_t>(pairs)), b_units(static_cast<std::size_t>(pairs));
  const float alpha = static_cast<float>(c.alpha), beta = static_cast<float>(c.beta);
  for (int64_t bi = 0; bi < c.batch; ++bi) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t p = 0; p < pairs; ++p) a_units[p] = unit(a, bi, i, p, true);
      for (int64_t j = 0; j < c.n; ++j) {
        for (int64_t p = 0; p < pairs; ++p) b_units[p] = unit(b, c.bcast_b ? 0 : bi, p, j, false);
        const float acc = pair_sum(a_units, b_units);
        const float old = static_cast<float>(before.storage[before.offset(bi, i, j)]);
        const bfloat16 want(beta == 0.0f ? alpha * acc : std::fma(alpha, acc, beta * old));
        const bfloat16 got = out.storage[out.offset(bi, i, j)];
        INFO("b " << bi << " i " << i << " j " << j << " want " << static_cast<float>(want) << " got "
                  << static_cast<float>(got));
        REQUIRE(bits_of(got) == bits_of(want));
      }
    }
  }
}

}  // namespace

TEST_CASE("bfloat16 gemm on the AVX512-BF16 kernel sums k pairs in order and rounds once, bit for bit",
          "[gemm][bf16dot]") {
  if (!npu::kernels::linalg::bf16_dot_available()) {
    WARN("skipped: this build or CPU has no AVX512-BF16, gemm() takes the float32 path for bfloat16");
    return;
  }
  // A transformer's projection (x @ w and x @ w.t()), on all workers.
  check_bits({1, 256, 512, 128, Layout::Row, Layout::Row, Layout::Row});
  check_bits({1, 256, 512, 128, Layout::Row, Layout::Col, Layout::Row});
  // k past one register pass (odd, then several blocks), edge tiles, every
  // operand layout, C row-major (rounded by the kernel) and strided or
  // column-major (rounded by gemm.cpp), beta != 0.
  check_bits({1, 100, 130, 1025, Layout::Col, Layout::Row, Layout::Row, false, false, 0.5, 0.0});
  for (const Layout lc : {Layout::Row, Layout::Col, Layout::Strided}) {
    check_bits({2, 29, 64, 2100, Layout::Blocked, Layout::Strided, lc, true, false, -1.5, 0.75});
    check_bits({3, 15, 33, 3, Layout::Strided, Layout::Col, lc, false, false, 2.0, 1.0});
  }
}
