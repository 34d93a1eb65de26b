// Pooling kernels (kernels/pool/pool.h): argument expansion and checks, output
// shapes (ceil_mode's last-window rule), and a channel-blocked (NC1HWC0)
// input giving what its plain NCHW values give, checked against a reference
// computed here with plain loops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/core/tensor_view.h"
#include "kernels/pool/pool.h"

using npu::kernels::KernelError;
using npu::kernels::PoolInput;
using npu::kernels::PoolParams;
using npu::kernels::Shape;
using npu::kernels::TensorView;
using npu::model::DType;

namespace {

TensorView view_of(std::vector<float>& data, const Shape& sizes) {
  return TensorView{data.data(), DType::Float32, sizes, npu::kernels::contiguous_strides(sizes)};
}

}  // namespace

TEST_CASE("pool_params expands lists and rejects bad values", "[pool]") {
  const PoolParams p = npu::kernels::pool_params("t", 2, {3}, {}, {1, 0}, {}, false);
  REQUIRE(p.kernel == Shape{3, 3});
  REQUIRE(p.stride == Shape{3, 3});  // empty stride = kernel
  REQUIRE(p.padding == Shape{1, 0});
  REQUIRE(p.dilation == Shape{1, 1});
  REQUIRE_THROWS_AS(npu::kernels::pool_params("t", 2, {2, 2, 2}, {}, {0}, {}, false), KernelError);
  REQUIRE_THROWS_AS(npu::kernels::pool_params("t", 2, {0}, {}, {0}, {}, false), KernelError);
  REQUIRE_THROWS_AS(npu::kernels::pool_params("t", 2, {2}, {0}, {0}, {}, false), KernelError);
  REQUIRE_THROWS_AS(npu::kernels::pool_params("t", 2, {2}, {}, {-1}, {}, false), KernelError);
  REQUIRE_THROWS_AS(npu::kernels::pool_params("t", 2, {2}, {}, {2}, {}, false), KernelError);  // > half kernel
  // Dilation widens the kernel padding may take half of.
  REQUIRE_NOTHROW(npu::kernels::pool_params("t", 2, {2}, {}, {1}, {3}, false));
}

TEST_CASE("pooled shapes: ceil_mode keeps a last window only if it starts inside", "[pool]") {
  const PoolParams floor_mode = npu::kernels::pool_params("t", 2, {2}, {2}, {0}, {}, false);
  REQUIRE(npu::kernels::pooled_shape("t", {1, 3, 5, 4}, floor_mode) == Shape{1, 3, 2, 2});
  const PoolParams ceil_mode = npu::kernels::pool_params("t", 2, {2}, {2}, {0}, {}, true);
  REQUIRE(npu::kernels::pooled_shape("t", {3, 5, 4}, ceil_mode) == Shape{3, 3, 2});
  // Width 5, padding 1: rounding up would add a 4th window starting in the
  // right padding (at 6 = 5 + 1): dropped.
  const PoolParams padded = npu::kernels::pool_params("t", 1, {2}, {2}, {1}, {}, true);
  REQUIRE(npu::kernels::pooled_shape("t", {1, 2, 5}, padded) == Shape{1, 2, 3});
  REQUIRE(npu::kernels::pooled_shape("t", {1, 2, 4}, padded) == Shape{1, 2, 3});
  REQUIRE(npu::kernels::pooled_shape("t", {0, 2, 5}, padded) == Shape{0, 2, 3});  // empty batch
  REQUIRE_THROWS_AS(npu::kernels::pooled_shape("t", {1, 2, 0, 4}, floor_mode), KernelError);  // empty plane
  REQUIRE_THROWS_AS(npu::kernels::pooled_shape("t", {1, 1, 1, 1}, floor_mode), KernelError);  // too small
  REQUIRE_THROWS_AS(npu::kernels::pooled_shape("t", {4, 4}, floor_mode), KernelError);        // rank
}

TEST_CASE("an NC1HWC0 input pools as its NCHW values", "[pool]") {
  constexpr int64_t kC0 = 16;
  const int64_t n = 2, c = 19, h = 5, w = 4, c1 = (c + kC0 - 1) / kC0;
  std::vector<float> plain(n * c * h * w);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>((i * 37) % 23) - 11.0f;
  // The same values in [N, C1, H, W, C0] storage; padding channels hold zeros.
  std::vector<float> blocked(n * c1 * h * w * kC0, 0.0f);
  for (int64_t a = 0; a < n; ++a)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          blocked[(((a * c1 + ch / kC0) * h + y) * w + x) * kC0 + ch % kC0] = plain[((a * c + ch) * h + y) * w + x];
  const TensorView storage{blocked.data(), DType::Float32, {n, c, h, w}, {c1 * h * w * kC0, 1, w * kC0, kC0}};
  const PoolInput input(storage, kC0, h * w * kC0);
  const PoolParams p = npu::kernels::pool_params("t", 2, {3}, {2}, {1}, {}, true);
  const Shape out_shape = npu::kernels::pooled_shape("t", {n, c, h, w}, p);
  const int64_t numel = out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3];

  std::vector<float> ref_max(numel), got_max(numel), ref_avg(numel), got_avg(numel);
  std::vector<int64_t> ref_idx(numel), got_idx(numel);
  auto index_view = [&](std::vector<int64_t>& d) {
    return TensorView{d.data(), DType::Int64, out_shape, npu::kernels::contiguous_strides(out_shape)};
  };
  std::vector<float> plain_copy = plain;
  npu::kernels::max_pool(view_of(plain_copy, {n, c, h, w}), view_of(ref_max, out_shape), index_view(ref_idx), p);
  npu::kernels::max_pool(input, view_of(got_max, out_shape), index_view(got_idx), p);
  npu::kernels::avg_pool(view_of(plain_copy, {n, c, h, w}), view_of(ref_avg, out_shape), p, false, 0);
  npu::kernels::avg_pool(input, view_of(got_avg, out_shape), p, false, 0);
  REQUIRE(got_max == ref_max);
  REQUIRE(got_idx == ref_idx);
  // CANN's aclnnMaxPool2dWithIndices may hand int32 indices: the same positions.
  std::vector<int32_t> idx32(numel);
  std::vector<float> max32(numel);
  npu::kernels::max_pool(input, view_of(max32, out_shape),
                         TensorView{idx32.data(), DType::Int32, out_shape, npu::kernels::contiguous_strides(out_shape)},
                         p);
  REQUIRE(std::equal(idx32.begin(), idx32.end(), ref_idx.begin()));
  REQUIRE(got_avg == ref_avg);

  // The plain result against loops written here: max over each clipped window.
  for (int64_t a = 0; a < n; ++a)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t oy = 0; oy < out_shape[2]; ++oy)
        for (int64_t ox = 0; ox < out_shape[3]; ++ox) {
          float best = -INFINITY;
          for (int64_t y = std::max<int64_t>(oy * 2 - 1, 0); y < std::min<int64_t>(oy * 2 + 2, h); ++y)
            for (int64_t x = std::max<int64_t>(ox * 2 - 1, 0); x < std::min<int64_t>(ox * 2 + 2, w); ++x)
              best = std::max(best, plain[((a * c + ch) * h + y) * w + x]);
          REQUIRE(ref_max[((a * c + ch) * out_shape[2] + oy) * out_shape[3] + ox] == best);
        }
}
