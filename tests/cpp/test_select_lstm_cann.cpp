// Kernels behind CANN's entries the real torch_npu calls: aclnnIsClose,
// aclnnIsFinite, aclnnUnique2 (kernels/select) and aclnnLSTM /
// aclnnLstmBackward (kernels/rnn/lstm_cann.h), against the definitions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/pointwise/unary_ops.h"
#include "kernels/rnn/lstm_cann.h"
#include "kernels/rnn/lstm_layer.h"
#include "kernels/select/isclose.h"
#include "kernels/select/unique.h"

using namespace npu::kernels;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T>
TensorView view_of(std::vector<T>& v, DType dt, Shape sizes, Shape strides = {}) {
  return TensorView{v.data(), dt, sizes, strides.empty() ? contiguous_strides(sizes) : strides};
}

std::vector<float> randoms(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

}  // namespace

TEST_CASE("isfinite: NaN and infinities are not finite; integers and bool always are", "[select]") {
  std::vector<double> in{1.0, kNaN, kInf, -kInf, -0.0, 1e308};
  std::vector<unsigned char> out(6, 7);
  unary(UnaryFn::IsFinite, view_of(out, DType::Bool, {6}), view_of(in, DType::Float64, {6}));
  CHECK(out == std::vector<unsigned char>{1, 0, 0, 0, 1, 1});
  std::vector<int32_t> ints{-5, 0, std::numeric_limits<int32_t>::max()};
  std::vector<unsigned char> iout(3, 7);
  unary(UnaryFn::IsFinite, view_of(iout, DType::Bool, {3}), view_of(ints, DType::Int32, {3}));
  CHECK(iout == std::vector<unsigned char>{1, 1, 1});
}

TEST_CASE("isclose: |a - b| <= atol + |rtol * b|, infinities equal only to themselves, NaN by equal_nan", "[select]") {
  std::vector<double> a{1.0, 1.0, 100.0, kInf, kInf, kNaN, kNaN, 0.0};
  std::vector<double> b{1.0 + 1e-9, 1.2, 101.0, kInf, -kInf, kNaN, 1.0, 1e-9};
  std::vector<unsigned char> out(8, 7);
  const TensorView o = view_of(out, DType::Bool, {8});
  isclose(o, view_of(a, DType::Float64, {8}), view_of(b, DType::Float64, {8}), {0.01, 1e-8, false});
  CHECK(out == std::vector<unsigned char>{1, 0, 1, 1, 0, 0, 0, 1});
  isclose(o, view_of(a, DType::Float64, {8}), view_of(b, DType::Float64, {8}), {0.01, 1e-8, true});
  CHECK(out == std::vector<unsigned char>{1, 0, 1, 1, 0, 1, 0, 1});
  // Zero tolerances leave equality only.
  isclose(o, view_of(a, DType::Float64, {8}), view_of(b, DType::Float64, {8}), {0.0, 0.0, false});
  CHECK(out == std::vector<unsigned char>{0, 0, 0, 1, 0, 0, 0, 0});
}

TEST_CASE("isclose: integers compute in float32, so differences do not wrap; broadcast", "[select]") {
  std::vector<int8_t> a{1, 2, 3, 127};
  std::vector<int8_t> b{2};  // broadcast [1] -> [4]
  std::vector<unsigned char> out(4, 7);
  isclose(view_of(out, DType::Bool, {4}), view_of(a, DType::Int8, {4}), view_of(b, DType::Int8, {1}),
          {0.0, 1.0, false});
  CHECK(out == std::vector<unsigned char>{1, 1, 1, 0});
  // 127 - (-1) is 128 (it would wrap to -128 in int8); 4 - 5 is -1 (255 in uint8).
  std::vector<int8_t> c{127}, d{-1};
  isclose(view_of(out, DType::Bool, {1}), view_of(c, DType::Int8, {1}), view_of(d, DType::Int8, {1}),
          {0.0, 1.0, false});
  CHECK(out[0] == 0);
  std::vector<uint8_t> e{4}, f{5};
  isclose(view_of(out, DType::Bool, {1}), view_of(e, DType::UInt8, {1}), view_of(f, DType::UInt8, {1}),
          {0.0, 1.0, false});
  CHECK(out[0] == 1);
  std::vector<int16_t> wrong{1};
  CHECK_THROWS_WITH(check_isclose(view_of(out, DType::Bool, {1}), view_of(c, DType::Int8, {1}),
                                  view_of(wrong, DType::Int16, {1})),
                    Catch::Contains("other must have self's dtype"));
}

TEST_CASE("unique: sorted values, inverse indices, counts; NaNs last and distinct; strided input", "[select]") {
  // [[3, NaN, 1], [3, 2, NaN]] read through a transposed view.
  std::vector<float> data{3, 3, kNaN, 2, 1, kNaN};
  const TensorView self = view_of(data, DType::Float32, {2, 3}, {1, 2});
  std::vector<float> values(6, -1);
  std::vector<int64_t> inverse(6, -1), counts(6, -1);
  const UniqueOutputs out{view_of(values, DType::Float32, {6}), view_of(inverse, DType::Int64, {2, 3}),
                          view_of(counts, DType::Int64, {6})};
  const int64_t n = unique_sorted(self, out);
  REQUIRE(n == 5);
  CHECK(values[0] == 1);
  CHECK(values[1] == 2);
  CHECK(values[2] == 3);
  CHECK(std::isnan(values[3]));
  CHECK(std::isnan(values[4]));
  CHECK(inverse == std::vector<int64_t>{2, 3, 0, 2, 1, 4});
  CHECK(std::vector<int64_t>(counts.begin(), counts.begin() + 5) == std::vector<int64_t>{1, 1, 2, 1, 1});
  std::vector<float> small(2);
  CHECK_THROWS_WITH(check_unique(self, UniqueOutputs{view_of(small, DType::Float32, {2}), {}, {}}),
                    Catch::Contains("valueOut"));
}

TEST_CASE("aclnnLSTM's saved tensors are CANN's i, j, f, o, h, c, tanh(c); the backward from them is the layer's",
          "[select][rnn]") {
  const int64_t T = 4, B = 3, I = 5, H = 6;
  auto x = randoms(T * B * I, 1), wih = randoms(4 * H * I, 2), whh = randoms(4 * H * H, 3), bih = randoms(4 * H, 4),
       bhh = randoms(4 * H, 5), h0 = randoms(B * H, 6), c0 = randoms(B * H, 7);
  const LstmCannLayer a{view_of(x, DType::Float32, {T, B, I}),   view_of(wih, DType::Float32, {4 * H, I}),
                        view_of(whh, DType::Float32, {4 * H, H}), view_of(bih, DType::Float32, {4 * H}),
                        view_of(bhh, DType::Float32, {4 * H}),    view_of(h0, DType::Float32, {B, H}),
                        view_of(c0, DType::Float32, {B, H})};
  std::vector<float> out(T * B * H), hy(B * H), cy(B * H);
  std::vector<std::vector<float>> lists(7, std::vector<float>(T * B * H));
  const auto seq = [&](std::vector<float>& v) { return view_of(v, DType::Float32, {T, B, H}); };
  const LstmCannSaved saved{seq(lists[0]), seq(lists[1]), seq(lists[2]), seq(lists[3]),
                            seq(lists[4]), seq(lists[5]), seq(lists[6])};
  check_lstm_cann_forward(a, seq(out), view_of(hy, DType::Float32, {B, H}), view_of(cy, DType::Float32, {B, H}), saved);
  lstm_cann_forward(a, seq(out), view_of(hy, DType::Float32, {B, H}), view_of(cy, DType::Float32, {B, H}), saved);
  const auto& [i, j, f, o, h, c, tanhc] =
      std::tie(lists[0], lists[1], lists[2], lists[3], lists[4], lists[5], lists[6]);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t k = 0; k < B * H; ++k) {
      const std::size_t at = static_cast<std::size_t>(t * B * H + k);
      const float c_prev = t == 0 ? c0[static_cast<std::size_t>(k)] : c[at - B * H];
      CHECK(c[at] == Approx(f[at] * c_prev + i[at] * j[at]).margin(1e-6));
      CHECK(tanhc[at] == Approx(std::tanh(c[at])).margin(1e-6));
      CHECK(h[at] == Approx(o[at] * tanhc[at]).margin(1e-6));
      CHECK(out[at] == h[at]);
      CHECK((i[at] > 0 && i[at] < 1 && f[at] > 0 && f[at] < 1 && o[at] > 0 && o[at] < 1));
    }
  }
  // The backward from CANN's tensors equals the layer kernel's from its own reserve.
  auto dy = randoms(T * B * H, 8), dh = randoms(B * H, 9), dc = randoms(B * H, 10);
  const LstmCannGrads g{seq(dy), view_of(dh, DType::Float32, {B, H}), view_of(dc, DType::Float32, {B, H})};
  std::vector<std::vector<float>> got(7), want(7);
  const std::vector<int64_t> sizes{T * B * I, B * H, B * H, 4 * H * I, 4 * H * H, 4 * H, 4 * H};
  for (std::size_t k = 0; k < 7; ++k) got[k].resize(sizes[k]), want[k].resize(sizes[k]);
  const auto grad_views = [&](std::vector<std::vector<float>>& v) {
    return LstmCannGradOutputs{view_of(v[0], DType::Float32, {T, B, I}), view_of(v[1], DType::Float32, {B, H}),
                               view_of(v[2], DType::Float32, {B, H}),    view_of(v[3], DType::Float32, {4 * H, I}),
                               view_of(v[4], DType::Float32, {4 * H, H}), view_of(v[5], DType::Float32, {4 * H}),
                               view_of(v[6], DType::Float32, {4 * H})};
  };
  lstm_cann_backward(a, saved, g, grad_views(got));
  const LstmLayerArgs layer{a.input, a.weight_ih, a.weight_hh, a.bias_ih, a.bias_hh, a.hx, a.cx, {}, false};
  std::vector<float> reserve(T * B * 6 * H), out2(T * B * H), hy2(B * H), cy2(B * H);
  lstm_layer_forward(layer, seq(out2), view_of(hy2, DType::Float32, {B, H}), view_of(cy2, DType::Float32, {B, H}),
                     view_of(reserve, DType::Float32, {T * B, 6 * H}));
  CHECK(out2 == out);
  const LstmCannGradOutputs w = grad_views(want);
  lstm_layer_backward(layer, view_of(reserve, DType::Float32, {T * B, 6 * H}),
                      LstmLayerGrads{g.dy, g.dh, g.dc},
                      LstmLayerGradOutputs{w.dx, w.dw_ih, w.dw_hh, w.db_ih, w.db_hh, w.dh_prev, w.dc_prev});
  for (std::size_t k = 0; k < 7; ++k) CHECK(got[k] == want[k]);
}
