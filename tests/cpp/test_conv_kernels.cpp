// The convolution kernels: im2col against a direct index computation on
// strided images, col2im as im2col's adjoint (<im2col(x), c> == <x, col2im(c)>),
// and the convolution against a direct-loop reference, plain and transposed.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/conv/conv.h"

namespace kc = npu::kernels::conv;
using npu::kernels::Shape;
using npu::kernels::TensorView;

namespace {

std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

Shape contiguous(const Shape& sizes) {
  Shape st(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * sizes[d + 1];
  return st;
}

TensorView view(std::vector<double>& data, const Shape& sizes, const Shape& strides) {
  return TensorView{data.data(), npu::model::DType::Float64, sizes, strides};
}

// Direct reference for 2-d: col[(c*KH + kh)*KW + kw][oh*OW + ow].
double reference_entry(const TensorView& img, int64_t n, int64_t c, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                       const kc::ConvParams& p) {
  const int64_t ih = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
  const int64_t iw = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
  if (ih < 0 || ih >= img.sizes[2] || iw < 0 || iw >= img.sizes[3]) return 0.0;
  return img.ptr<double>()[n * img.strides[0] + c * img.strides[1] + ih * img.strides[2] + iw * img.strides[3]];
}

}  // namespace

TEST_CASE("im2col reads a strided image with stride, padding and dilation", "[conv]") {
  // A [2, 3, 7, 9] image as every other column of a [2, 3, 7, 18] buffer.
  std::vector<double> buffer = random_values(2 * 3 * 7 * 18, 1);
  const Shape sizes{2, 3, 7, 9};
  const Shape strides{3 * 7 * 18, 7 * 18, 18, 2};
  const TensorView img = view(buffer, sizes, strides);
  const kc::ConvParams p{{2, 1}, {1, 2}, {1, 2}, 1};
  const Shape kernel{3, 2};
  const Shape columns = kc::column_sizes({7, 9}, kernel, p);
  REQUIRE(columns == Shape{4, 11});
  const kc::ConvOperand op = kc::strided_operand(img);
  // Channels 1..2 of image 1.
  std::vector<double> col(2 * 3 * 2 * 4 * 11);
  kc::im2col<double>(op, 1, 1, 2, kernel, columns, p, col.data());
  std::size_t i = 0;
  for (int64_t c = 1; c < 3; ++c)
    for (int64_t kh = 0; kh < 3; ++kh)
      for (int64_t kw = 0; kw < 2; ++kw)
        for (int64_t oh = 0; oh < 4; ++oh)
          for (int64_t ow = 0; ow < 11; ++ow) REQUIRE(col[i++] == reference_entry(img, 1, c, kh, kw, oh, ow, p));
}

TEST_CASE("col2im is the adjoint of im2col in 1, 2 and 3 spatial dims", "[conv]") {
  struct Case {
    Shape image, kernel;
    kc::ConvParams p;
  };
  const std::vector<Case> cases = {
      {{13}, {3}, {{2}, {1}, {2}, 1}},
      {{6, 7}, {3, 3}, {{1, 2}, {1, 0}, {1, 1}, 1}},
      {{4, 5, 6}, {2, 3, 2}, {{2, 1, 3}, {1, 1, 0}, {1, 2, 1}, 1}},
      {{5, 5}, {1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}},
  };
  for (const Case& cs : cases) {
    const int64_t channels = 3;
    Shape sizes{1, channels};
    for (int64_t s : cs.image) sizes.push_back(s);
    int64_t plane = 1, kernel = 1, cols = 1;
    for (int64_t s : cs.image) plane *= s;
    for (int64_t k : cs.kernel) kernel *= k;
    const Shape columns = kc::column_sizes(cs.image, cs.kernel, cs.p);
    for (int64_t c : columns) cols *= c;
    std::vector<double> x = random_values(static_cast<std::size_t>(channels * plane), 2);
    const std::vector<double> c = random_values(static_cast<std::size_t>(channels * kernel * cols), 3);
    std::vector<double> unfolded(c.size());
    kc::im2col<double>(kc::strided_operand(view(x, sizes, contiguous(sizes))), 0, 0, channels, cs.kernel, columns,
                       cs.p, unfolded.data());
    std::vector<double> folded(x.size(), 0.0);
    kc::col2im<double>(c.data(), channels, cs.image, cs.kernel, columns, cs.p, folded.data());
    double lhs = 0, rhs = 0;
    for (std::size_t i = 0; i < c.size(); ++i) lhs += unfolded[i] * c[i];
    for (std::size_t i = 0; i < x.size(); ++i) rhs += x[i] * folded[i];
    REQUIRE(lhs == Approx(rhs).epsilon(1e-12));
  }
}

TEST_CASE("convolution matches a direct loop, grouped, plain and transposed", "[conv]") {
  // input [3, 4, 6, 5], weight [6, 2, 3, 2], groups 2, stride (2, 1), padding (1, 1).
  const Shape in_sizes{3, 4, 6, 5}, w_sizes{6, 2, 3, 2};
  const kc::ConvParams p{{2, 1}, {1, 1}, {1, 1}, 2};
  const Shape out_spatial = kc::column_sizes({6, 5}, {3, 2}, p);
  const Shape out_sizes{3, 6, out_spatial[0], out_spatial[1]};
  std::vector<double> x = random_values(3 * 4 * 6 * 5, 4);
  std::vector<double> w = random_values(6 * 2 * 3 * 2, 5);
  std::vector<double> bias = random_values(6, 6);
  std::vector<double> out(static_cast<std::size_t>(3 * 6 * out_spatial[0] * out_spatial[1]));
  const auto xo = kc::strided_operand(view(x, in_sizes, contiguous(in_sizes)));
  const auto wo = kc::strided_operand(view(w, w_sizes, contiguous(w_sizes)));
  const auto oo = kc::strided_operand(view(out, out_sizes, contiguous(out_sizes)));
  const TensorView b = view(bias, {6}, {1});
  kc::convolution(xo, wo, &b, oo, p, false);
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t oh = 0; oh < out_spatial[0]; ++oh)
        for (int64_t ow = 0; ow < out_spatial[1]; ++ow) {
          double expected = bias[o];
          const int64_t g = o / 3;
          for (int64_t i = 0; i < 2; ++i)
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 2; ++kw) {
                const int64_t ih = oh * 2 - 1 + kh, iw = ow - 1 + kw;
                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 5) continue;
                expected += x[((n * 4 + g * 2 + i) * 6 + ih) * 5 + iw] * w[((o * 2 + i) * 3 + kh) * 2 + kw];
              }
          REQUIRE(out[((n * 6 + o) * out_spatial[0] + oh) * out_spatial[1] + ow] == Approx(expected).epsilon(1e-12));
        }
  // The transposed convolution with the same weight is the adjoint of the
  // plain one (without bias): <conv(x), y> == <x, conv_transpose(y)>.
  std::vector<double> y = random_values(out.size(), 7);
  std::vector<double> back(x.size());
  const auto yo = kc::strided_operand(view(y, out_sizes, contiguous(out_sizes)));
  const auto bo = kc::strided_operand(view(back, in_sizes, contiguous(in_sizes)));
  kc::convolution(yo, wo, nullptr, bo, p, true);
  kc::convolution(xo, wo, nullptr, oo, p, false);
  double lhs = 0, rhs = 0;
  for (std::size_t i = 0; i < y.size(); ++i) lhs += out[i] * y[i];
  for (std::size_t i = 0; i < x.size(); ++i) rhs += x[i] * back[i];
  REQUIRE(lhs == Approx(rhs).epsilon(1e-12));
}

namespace {

// A convolution problem in float32 (contiguous NCHW operands); stride 1
// unless given.
struct ShiftedCase {
  Shape input, weight;
  Shape padding;
  Shape stride = {};
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> out;
  for (const double v : random_values(n, seed)) out.push_back(static_cast<float>(v));
  return out;
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (const int64_t v : s) n *= v;
  return n;
}

// The forward output and the input gradient of `c` with the given paths.
std::pair<std::vector<float>, std::vector<float>> run_paths(const ShiftedCase& c, bool shifted, bool tile) {
  const std::size_t dims = c.input.size() - 2;
  kc::ConvParams p{c.stride.empty() ? Shape(dims, 1) : c.stride, c.padding, Shape(dims, 1), 1};
  p.shifted = shifted;
  p.tile_gemm = tile;
  const Shape image(c.input.begin() + 2, c.input.end()), kernel(c.weight.begin() + 2, c.weight.end());
  const Shape spatial = kc::column_sizes(image, kernel, p);
  Shape out_sizes{c.input[0], c.weight[0]};
  out_sizes.insert(out_sizes.end(), spatial.begin(), spatial.end());
  std::vector<float> x = random_floats(static_cast<std::size_t>(numel(c.input)), 11);
  std::vector<float> w = random_floats(static_cast<std::size_t>(numel(c.weight)), 12);
  std::vector<float> bias = random_floats(static_cast<std::size_t>(c.weight[0]), 13);
  std::vector<float> gy = random_floats(static_cast<std::size_t>(numel(out_sizes)), 14);
  std::vector<float> out(gy.size()), gx(x.size());
  const auto fview = [](std::vector<float>& d, const Shape& s) {
    return kc::strided_operand(TensorView{d.data(), npu::model::DType::Float32, s, contiguous(s)});
  };
  const TensorView b{bias.data(), npu::model::DType::Float32, {c.weight[0]}, {1}};
  kc::convolution(fview(x, c.input), fview(w, c.weight), &b, fview(out, out_sizes), p, false);
  const auto gx_op = fview(gx, c.input);
  kc::convolution_backward(fview(gy, out_sizes), fview(x, c.input), fview(w, c.weight), &gx_op, nullptr, nullptr,
                           p, false);
  return {out, gx};
}

}  // namespace

TEST_CASE("shifted passes (stride 1, strided forward) match im2col + GEMM", "[conv]") {
  const std::vector<ShiftedCase> cases{
      {{2, 5, 9, 11}, {7, 5, 3, 3}, {1, 1}},     // "same" padding, odd sizes
      {{2, 5, 9, 11}, {7, 5, 5, 3}, {1, 2}},     // asymmetric kernel, padding below "same"
      {{3, 4, 8, 8}, {6, 4, 3, 3}, {0, 0}},      // no padding
      {{1, 40, 10, 9}, {37, 40, 3, 3}, {1, 1}},  // edge tiles in both directions
      {{1, 100, 6, 7}, {33, 100, 3, 3}, {1, 1}}, // k runs longer than one k block
      {{2, 3, 12, 12}, {8, 3, 7, 7}, {3, 3}},    // 7x7 over 3 channels
      {{2, 6, 20}, {5, 6, 5}, {2}},              // 1-d
      {{2, 3, 6, 6}, {4, 3, 2, 2}, {1, 1}},      // padding = kernel - 1
      // Strided: the forward only, on the tile GEMM (the input gradient by im2col).
      {{2, 3, 15, 14}, {8, 3, 7, 7}, {3, 3}, {2, 2}},  // ResNet's stem, odd size
      {{2, 4, 9, 8}, {6, 4, 3, 2}, {1, 0}, {2, 1}},
      {{2, 6, 21}, {5, 6, 4}, {1}, {3}},
  };
  for (const ShiftedCase& c : cases) {
    const auto [ref_out, ref_gx] = run_paths(c, false, false);
    for (const bool tile : {false, true}) {
      INFO("input " << c.input[1] << " channels, kernel " << c.weight[2] << ", tile GEMM " << tile);
      const auto [out, gx] = run_paths(c, true, tile);
      for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == Approx(ref_out[i]).margin(1e-4).epsilon(1e-4));
      for (std::size_t i = 0; i < gx.size(); ++i) REQUIRE(gx[i] == Approx(ref_gx[i]).margin(1e-4).epsilon(1e-4));
    }
  }
}

namespace {

// The weight gradient (and bias gradient) of `c` for a random output
// gradient, on the tile GEMM or on im2col + GEMM. With `channels_last_grad`
// the output gradient is stored channels-last (not dense rows: the tile
// path copies it first).
std::pair<std::vector<float>, std::vector<float>> weight_grad_paths(const ShiftedCase& c, bool tile,
                                                                    bool channels_last_grad) {
  const std::size_t dims = c.input.size() - 2;
  kc::ConvParams p{c.stride.empty() ? Shape(dims, 1) : c.stride, c.padding, Shape(dims, 1), 1};
  p.shifted = tile;
  p.tile_gemm = tile;
  const Shape image(c.input.begin() + 2, c.input.end()), kernel(c.weight.begin() + 2, c.weight.end());
  const Shape spatial = kc::column_sizes(image, kernel, p);
  Shape out_sizes{c.input[0], c.weight[0]};
  out_sizes.insert(out_sizes.end(), spatial.begin(), spatial.end());
  std::vector<float> x = random_floats(static_cast<std::size_t>(numel(c.input)), 21);
  std::vector<float> w = random_floats(static_cast<std::size_t>(numel(c.weight)), 22);
  std::vector<float> gy = random_floats(static_cast<std::size_t>(numel(out_sizes)), 24);
  std::vector<float> gw(w.size()), gb(static_cast<std::size_t>(c.weight[0]));
  const auto fview = [](std::vector<float>& d, const Shape& s, const Shape& st) {
    return kc::strided_operand(TensorView{d.data(), npu::model::DType::Float32, s, st});
  };
  Shape gy_strides = contiguous(out_sizes);
  if (channels_last_grad) {  // [n][spatial...][c]
    gy_strides[1] = 1;
    int64_t step = out_sizes[1];
    for (std::size_t d = out_sizes.size() - 1; d >= 2; --d) {
      gy_strides[d] = step;
      step *= out_sizes[d];
    }
    gy_strides[0] = step;
  }
  const auto gw_op = fview(gw, c.weight, contiguous(c.weight));
  const TensorView gb_view{gb.data(), npu::model::DType::Float32, {c.weight[0]}, {1}};
  kc::convolution_backward(fview(gy, out_sizes, gy_strides), fview(x, c.input, contiguous(c.input)),
                           fview(w, c.weight, contiguous(c.weight)), nullptr, &gw_op, &gb_view, p, false);
  return {gw, gb};
}

}  // namespace

TEST_CASE("the weight gradient on the tile GEMM matches im2col + GEMM", "[conv]") {
  const std::vector<ShiftedCase> cases{
      {{2, 3, 15, 14}, {8, 3, 7, 7}, {3, 3}, {2, 2}},  // ResNet's stem, odd sizes
      {{8, 3, 32, 32}, {64, 3, 7, 7}, {3, 3}, {2, 2}},  // 2048 positions: k split over blocks and tasks
      {{2, 5, 9, 11}, {7, 5, 3, 3}, {1, 1}},            // stride 1, "same" padding
      {{1, 40, 10, 9}, {37, 40, 3, 3}, {1, 1}},         // edge tiles in m and n, runs longer than a tile
      {{3, 4, 9, 8}, {6, 4, 3, 2}, {1, 0}, {2, 1}},     // mixed strides, asymmetric kernel
      {{2, 6, 21}, {5, 6, 4}, {1}, {3}},                // 1-d
  };
  for (const ShiftedCase& c : cases) {
    for (const bool channels_last : {false, true}) {
      INFO("input " << c.input[1] << " channels, kernel " << c.weight[2] << ", channels-last grad " << channels_last);
      const auto [ref_gw, ref_gb] = weight_grad_paths(c, false, channels_last);
      const auto [gw, gb] = weight_grad_paths(c, true, channels_last);
      for (std::size_t i = 0; i < gw.size(); ++i) REQUIRE(gw[i] == Approx(ref_gw[i]).margin(1e-3).epsilon(1e-4));
      for (std::size_t i = 0; i < gb.size(); ++i) REQUIRE(gb[i] == Approx(ref_gb[i]).margin(1e-3).epsilon(1e-4));
    }
  }
}
