// Helpers the normalization kernels share: small operands (affine
// parameters, saved statistics) moved between the caller's views, of any
// dtype and strides, and plain vectors of the compute type; sums in double
// over independent lanes; a row's two-pass moments.
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

template <class T>
constexpr DType dtype_of_compute() {
  return sizeof(T) == sizeof(double) ? DType::Float64 : DType::Float32;
}

// t's n elements (in t's logical order) as T; `fallback` n times when t is
// absent. `what` names t in the error of a wrong element count.
template <class T>
std::vector<T> values_or(const TensorView* t, int64_t n, T fallback, const std::string& what) {
  if (t == nullptr) return std::vector<T>(n, fallback);
  if (t->numel() != n) {
    throw KernelError(what + " must have " + std::to_string(n) + " elements, got shape " + shape_str(t->sizes));
  }
  std::vector<T> v(n);
  if (n > 0) copy(TensorView{v.data(), dtype_of_compute<T>(), t->sizes, contiguous_strides(t->sizes)}, *t);
  return v;
}

// Writes v (t's elements in logical order) into t; nothing when t is absent.
template <class T>
void store_values(const TensorView* t, const std::vector<T>& v) {
  if (t == nullptr || v.empty()) return;
  copy(*t, TensorView{const_cast<T*>(v.data()), dtype_of_compute<T>(), t->sizes, contiguous_strides(t->sizes)});
}

inline void require_floating_operand(const std::string& op, const char* name, const TensorView& t) {
  if (!model::is_floating_point(t.dtype) || model::is_complex(t.dtype)) {
    throw KernelError(op + ": " + name + " must be a floating point tensor, got " + model::dtype_name(t.dtype));
  }
}

// Sums in double over i in [0, n) of each of the values f(i) returns (an
// array of K), kept in 8 independent partial sums per value: a single
// running double sum is bound by the latency of its adds; independent lanes
// pipeline (and vectorize).
template <std::size_t K, class F>
std::array<double, K> lane_sums(int64_t n, F&& f) {
  constexpr int64_t kLanes = 8;
  std::array<std::array<double, kLanes>, K> acc{};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) {
      const std::array<double, K> v = f(i + l);
      for (std::size_t k = 0; k < K; ++k) acc[k][l] += v[k];
    }
  }
  std::array<double, K> total{};
  for (; i < n; ++i) {
    const std::array<double, K> v = f(i);
    for (std::size_t k = 0; k < K; ++k) total[k] += v[k];
  }
  for (std::size_t k = 0; k < K; ++k) {
    for (int64_t l = 0; l < kLanes; ++l) total[k] += acc[k][l];
  }
  return total;
}

// dx = rstd * w * g + scale * x + shift for a normalized set of `count`
// elements: scale and shift carry the gradient through its mean and
// variance, given ds = sum(g * w * x) and db = sum(g * w) over the set.
struct CenteredGrad {
  double scale;
  double shift;
};

inline CenteredGrad centered_grad(double ds, double db, double rstd, double mean, int64_t count) {
  const double inv = 1.0 / static_cast<double>(count);
  const double scale = (db * mean - ds) * rstd * rstd * rstd * inv;
  return {scale, -scale * mean - db * rstd * inv};
}

// The mean and the (biased) variance of n contiguous elements: sums in
// double, two passes; both rounded to T, the compute type CPU keeps them in.
// No elements: mean 0 (an empty sum) and variance NaN (0 / 0).
template <class T>
void two_pass_moments(const T* x, int64_t n, T& mean, T& var) {
  if (n == 0) {
    mean = T(0);
    var = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  const double mu = lane_sums<1>(n, [&](int64_t i) { return std::array<double, 1>{static_cast<double>(x[i])}; })[0] /
                    static_cast<double>(n);
  const double sq = lane_sums<1>(n, [&](int64_t i) {
    const double d = static_cast<double>(x[i]) - mu;
    return std::array<double, 1>{d * d};
  })[0];
  mean = static_cast<T>(mu);
  var = static_cast<T>(sq / static_cast<double>(n));
}

// Runs f(T{}) with T the compute type of `acc` (double or float).
template <class F>
void by_compute_type(DType acc, F&& f) {
  if (acc == DType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

// What every normalization entry does after its checks, in the input's
// compute type T: the weight as weight_n values of T (1 where absent), the
// input and (backward entries) the output's gradient as contiguous rows of T,
// then body(T{}, w, x, g, acc) with g null in the forward.
template <class Body>
void in_compute_type(const std::string& op, const char* weight_name, const TensorView* weight, int64_t weight_n,
                     const TensorView& input, const TensorView* grad_out, Body&& body) {
  const DType acc = compute_dtype_of(input.dtype);
  by_compute_type(acc, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> w = values_or<T>(weight, weight_n, T(1), op + ": " + weight_name);
    std::optional<ScratchTensor> hx;
    const T* x = contiguous_as(input, acc, hx).ptr<const T>();
    if (grad_out == nullptr) return body(zero, w, x, static_cast<const T*>(nullptr), acc);
    std::optional<ScratchTensor> hg;
    body(zero, w, x, contiguous_as(*grad_out, acc, hg).ptr<const T>(), acc);
  });
}

}  // namespace npu::kernels
