// Small operands of the normalization kernels (affine parameters, saved
// statistics) moved between the caller's views, of any dtype and strides,
// and plain vectors of the compute type.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
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
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]);
  const double mu = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mu;
    sq += d * d;
  }
  mean = static_cast<T>(mu);
  var = static_cast<T>(sq / static_cast<double>(n));
}

// a * b + c rounded once, for float: PyTorch's CPU kernels are built with
// FMA for AVX2/AVX-512, where the compiler fuses their `x * s + t`; where
// the fused form rounds a cancellation differently (a row of one element:
// x * rstd - mean * rstd), CPU keeps the rounding error of the product, and
// so does this. The product of two floats is exact in double, so one
// rounding of the double sum gives the fused result (up to a double-rounding
// tie, about one in 2^29). double (no FMA in the baseline ISA) is not fused.
template <class T>
T fused_mul_add(T a, T b, T c) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c));
  } else {
    return a * b + c;
  }
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

}  // namespace npu::kernels
