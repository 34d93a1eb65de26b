// A float32 GEMM for the convolution passes on an AVX-512 register-tile
// micro-kernel: A's rows are read in place from the caller's buffers
// (conv_shifted.cpp: a padded channels-last grid whose runs are image rows
// of the window, or an output gradient's channel rows), so no column matrix
// is stored or packed for A; B is packed by the caller's pack_b. The 14 x 32
// tile (28 of the 32 zmm registers) runs closer to the cores' peak than
// Eigen's 48 x 4.
#pragma once

#include <cstdint>
#include <functional>

namespace npu::kernels::conv {

inline constexpr int kTileRows = 14;  // rows of a micro-tile (A panel width)
inline constexpr int kTileCols = 32;  // columns of a micro-tile (B panel width)

struct TileGemm {
  int64_t m = 0, n = 0, k = 0;
  // A row i is runs of k_run contiguous values, run_stride apart:
  //   A(i, l) = a_row(i)[(l / k_run) * run_stride + l % k_run]
  // (k_run 0: one run of k). A k block spans several runs, so the tile
  // stays in registers over a whole block even when runs are short (the
  // 7 x 3 values of a 7x7 kernel row over 3 channels).
  int64_t k_run = 0;
  int64_t run_stride = 0;
  std::function<const float*(int64_t i)> a_row;
  // Writes columns [j0, j0 + cols) of B over k in [k0, k0 + kc) as
  // dst[kk * kTileCols + j] (cols <= kTileCols; the rest are zero already).
  // May be called from several threads at once.
  std::function<void(int64_t j0, int64_t cols, int64_t k0, int64_t kc, float* dst)> pack_b;
  float* c = nullptr;  // m x n, row-major
  int64_t ldc = 0;
};

// Whether tile_gemm runs here (built for and running on AVX-512).
bool tile_gemm_available();

// C = A * B (C's old values ignored). In parallel over row blocks, with B
// packed whole once; when there are too few row blocks to keep the cores
// busy and k is long (a weight gradient: m and n are channels, k the
// positions of the whole batch), over k ranges instead, each summing into
// its own C, with B packed block by block.
void tile_gemm(const TileGemm& g);

}  // namespace npu::kernels::conv
