// The float layer norm row loops give the same results from the AVX2 + FMA
// build this machine runs and from the baseline build (FMA emulated through
// double), so machines without AVX2 compute what the others do; and both
// keep the rounding error of a fused x * rstd - rstd * mean.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/norm/float_rows.h"

using npu::kernels::FloatRowLoops;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace

TEST_CASE("float layer norm rows: baseline and best builds agree", "[norm]") {
  const FloatRowLoops& base = npu::kernels::baseline_float_rows();
  const FloatRowLoops& best = npu::kernels::best_float_rows();
  for (const int64_t n : {1, 7, 8, 64, 131, 512}) {
    const auto x = random_floats(n, 1), w = random_floats(n, 2), b = random_floats(n, 3), g = random_floats(n, 4);
    const auto m0 = base.moments(x.data(), n);
    const auto m1 = best.moments(x.data(), n);
    CHECK(m1.mean == Approx(m0.mean).epsilon(1e-14).margin(1e-14));
    CHECK(m1.m2 == Approx(m0.m2).epsilon(1e-14).margin(1e-14));
    const float mean = static_cast<float>(m0.mean);
    const float rstd = 1.0f / std::sqrt(static_cast<float>(m0.m2 / n) + 1e-5f);
    std::vector<float> y0(n), y1(n);
    base.centered_affine(y0.data(), x.data(), n, mean, rstd, w.data(), b.data());
    best.centered_affine(y1.data(), x.data(), n, mean, rstd, w.data(), b.data());
    CHECK(y0 == y1);
    base.scaled_affine(y0.data(), x.data(), n, rstd, -rstd * mean, w.data(), b.data());
    best.scaled_affine(y1.data(), x.data(), n, rstd, -rstd * mean, w.data(), b.data());
    CHECK(y0 == y1);
    std::vector<double> a0(n, 0.0), a1(n, 0.0);
    base.normalized_grad(a0.data(), g.data(), x.data(), n, rstd, -rstd * mean);
    best.normalized_grad(a1.data(), g.data(), x.data(), n, rstd, -rstd * mean);
    for (int64_t i = 0; i < n; ++i) CHECK(a1[i] == Approx(a0[i]).epsilon(1e-14).margin(1e-14));
    double ds0 = 0, db0 = 0, ds1 = 0, db1 = 0;
    base.grad_sums(g.data(), x.data(), w.data(), n, ds0, db0);
    best.grad_sums(g.data(), x.data(), w.data(), n, ds1, db1);
    CHECK(ds1 == Approx(ds0).epsilon(1e-12).margin(1e-12));
    CHECK(db1 == Approx(db0).epsilon(1e-12).margin(1e-12));
    base.input_grad(y0.data(), g.data(), x.data(), w.data(), n, rstd, 0.25f, -0.5f);
    best.input_grad(y1.data(), g.data(), x.data(), w.data(), n, rstd, 0.25f, -0.5f);
    for (int64_t i = 0; i < n; ++i) CHECK(y1[i] == Approx(y0[i]).epsilon(1e-6).margin(1e-6));
  }
}

TEST_CASE("float layer norm rows keep the rounding error of a fused x * rstd - rstd * mean", "[norm]") {
  // A row of one element: x is its own mean, so x * rstd - rstd * mean is 0
  // unfused; fused, it is the rounding error of x * rstd, as on CPU's
  // AVX2/AVX-512 build.
  const float x = 1.7f;
  const float rstd = 1.0f / std::sqrt(1e-5f);
  const float one = 1.0f, zero = 0.0f;
  const float expected = static_cast<float>(static_cast<double>(x) * rstd - static_cast<double>(rstd * x));
  REQUIRE(expected != 0.0f);
  for (const FloatRowLoops* loops : {&npu::kernels::baseline_float_rows(), &npu::kernels::best_float_rows()}) {
    float y = -1.0f;
    loops->scaled_affine(&y, &x, 1, rstd, -rstd * x, &one, &zero);
    CHECK(y == expected);
    loops->centered_affine(&y, &x, 1, x, rstd, &one, &zero);
    CHECK(y == 0.0f);  // (x - mean) * rstd: exactly 0
  }
}
