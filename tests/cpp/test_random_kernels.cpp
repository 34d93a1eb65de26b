#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/random/philox.h"
#include "kernels/random/random_ops.h"

using namespace npu::kernels;

namespace {
template <class T>
TensorView view_of(std::vector<T>& v, DType dt, Shape sizes, Shape strides = {}) {
  return TensorView{v.data(), dt, sizes, strides.empty() ? contiguous_strides(sizes) : strides};
}

template <class T>
double mean_of(const std::vector<T>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
}  // namespace

TEST_CASE("philox4x32-10 matches the Random123 known-answer vectors") {
  // Counter 0, key 0.
  REQUIRE(philox4x32_10(0, PhiloxBlock{0, 0, 0, 0}) == PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  // All ones.
  REQUIRE(philox4x32_10(0xffffffffffffffffull, PhiloxBlock{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}) ==
          PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  // Digits of pi; the key's low word is key[0].
  REQUIRE(philox4x32_10(0x299f31d0a4093822ull, PhiloxBlock{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}) ==
          PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("uniform depends only on seed and offset, not on strides") {
  std::vector<float> dense(64), strided(128, -1.0f);
  uniform(view_of(dense, DType::Float32, {64}), 2.0, 5.0, {42, 8});
  uniform(view_of(strided, DType::Float32, {64}, {2}), 2.0, 5.0, {42, 8});
  for (int i = 0; i < 64; ++i) {
    REQUIRE(dense[i] >= 2.0f);
    REQUIRE(dense[i] < 5.0f);
    REQUIRE(strided[2 * i] == dense[i]);
    REQUIRE(strided[2 * i + 1] == -1.0f);
  }
  // Element i draws from block offset / 4 + i: shifting the offset by 4 words
  // shifts the sequence by one element.
  std::vector<float> shifted(63);
  uniform(view_of(shifted, DType::Float32, {63}), 2.0, 5.0, {42, 12});
  REQUIRE(std::equal(shifted.begin(), shifted.end(), dense.begin() + 1));
}

TEST_CASE("normal has the requested mean and standard deviation") {
  std::vector<double> v(200000);
  normal(view_of(v, DType::Float64, {200000}), 3.0, 2.0, {7, 0});
  const double m = mean_of(v);
  double var = 0;
  for (double x : v) var += (x - m) * (x - m);
  var /= static_cast<double>(v.size());
  REQUIRE(std::abs(m - 3.0) < 0.03);
  REQUIRE(std::abs(std::sqrt(var) - 2.0) < 0.03);
}

TEST_CASE("random_integers stays in [from, from + range) and covers it") {
  std::vector<int32_t> v(10000);
  random_integers(view_of(v, DType::Int32, {10000}), -3, 7, {1, 0});
  REQUIRE(*std::min_element(v.begin(), v.end()) == -3);
  REQUIRE(*std::max_element(v.begin(), v.end()) == 3);
}

TEST_CASE("bernoulli with scalar and tensor probabilities") {
  std::vector<float> v(100000);
  bernoulli(view_of(v, DType::Float32, {100000}), 0.25, {9, 0});
  REQUIRE(std::abs(mean_of(v) - 0.25) < 0.01);
  std::vector<float> p{0.0f, 1.0f};
  std::vector<uint8_t> b(2000);
  bernoulli(view_of(b, DType::UInt8, {1000, 2}), view_of(p, DType::Float32, {2}), {9, 0});
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(b[2 * i] == 0);
    REQUIRE(b[2 * i + 1] == 1);
  }
  std::vector<float> bad{1.5f};
  REQUIRE_THROWS_AS(bernoulli(view_of(b, DType::UInt8, {2000}), view_of(bad, DType::Float32, {1}), {9, 0}),
                    KernelError);
}

TEST_CASE("exponential has mean 1 / lambda") {
  std::vector<float> v(100000);
  exponential(view_of(v, DType::Float32, {100000}), 4.0, {3, 0});
  REQUIRE(*std::min_element(v.begin(), v.end()) >= 0.0f);
  REQUIRE(std::abs(mean_of(v) - 0.25) < 0.01);
}

TEST_CASE("randperm is a permutation, reproducible for a seed") {
  std::vector<int64_t> a(1000), b(1000), c(1000);
  randperm(view_of(a, DType::Int64, {1000}), {5, 0});
  randperm(view_of(b, DType::Int64, {1000}), {5, 0});
  randperm(view_of(c, DType::Int64, {1000}), {6, 0});
  REQUIRE(a == b);
  REQUIRE(a != c);
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[i] == i);
}

TEST_CASE("dropout zeroes with probability p and scales the rest") {
  std::vector<float> x(100000, 2.0f), out(100000);
  std::vector<uint8_t> mask(100000);  // bool storage
  dropout(view_of(out, DType::Float32, {100000}), view_of(mask, DType::Bool, {100000}),
          view_of(x, DType::Float32, {100000}), 0.2, {11, 0});
  std::size_t kept = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (mask[i]) {
      ++kept;
      REQUIRE(out[i] == Approx(2.5f));
    } else {
      REQUIRE(out[i] == 0.0f);
    }
  }
  REQUIRE(std::abs(static_cast<double>(kept) / x.size() - 0.8) < 0.01);
}
