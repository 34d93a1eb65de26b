// A float32 GEMM for the convolution passes on an AVX-512 register-tile
// micro-kernel: A's rows are read in place from the caller's padded
// channels-last grid (conv_shifted.cpp: a row is an output position, its k
// runs are image rows of the window), so no column matrix is stored or
// packed; B (the weight) is packed once per call. The 14 x 32 tile (28 of
// the 32 zmm registers) runs closer to the cores' peak than Eigen's 48 x 4.
#pragma once

#include <cstdint>
#include <functional>

namespace npu::kernels::conv {

inline constexpr int kTileRows = 14;  // rows of a micro-tile (A panel width)
inline constexpr int kTileCols = 32;  // columns of a micro-tile (B panel width)

struct TileGemm {
  int64_t m = 0, n = 0, k = 0;
  // k blocks never cross a multiple of k_run: within one, each row of A is
  // contiguous in memory.
  int64_t k_run = 0;
  // The address of A(i, k0); A(i, k0 + l) follows it for the rest of k0's run.
  // A is read in place (no packing): its rows are runs of the caller's grid.
  std::function<const float*(int64_t i, int64_t k0)> a_row;
  // Writes columns [j0, j0 + cols) of B over k in [k0, k0 + kc) as
  // dst[kk * kTileCols + j] (cols <= kTileCols; the rest are zero already).
  std::function<void(int64_t j0, int64_t cols, int64_t k0, int64_t kc, float* dst)> pack_b;
  float* c = nullptr;  // m x n, row-major
  int64_t ldc = 0;
};

// Whether tile_gemm runs here (built for and running on AVX-512).
bool tile_gemm_available();

// C = A * B (C's old values ignored), in parallel over row blocks.
void tile_gemm(const TileGemm& g);

}  // namespace npu::kernels::conv
