// A host scalar operand (aclScalar's value), readable as any element type.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

class Scalar {
 public:
  Scalar() = default;
  static Scalar from_double(double v) { return Scalar(DType::Float64, {v, 0.0}, 0); }
  static Scalar from_int(int64_t v) { return Scalar(DType::Int64, {}, v); }
  // Reads one element of `dtype` from `raw` (the bytes an aclScalar holds).
  static Scalar from_raw(const void* raw, DType dtype);

  DType dtype() const { return dtype_; }

  template <class T>
  T to() const {
    if (model::is_complex(dtype_)) return convert<T>(complex_);
    if (model::is_floating_point(dtype_)) return convert<T>(complex_.real());
    return convert<T>(int_);
  }

 private:
  Scalar(DType dtype, std::complex<double> c, int64_t i) : dtype_(dtype), complex_(c), int_(i) {}
  DType dtype_ = DType::Int64;
  std::complex<double> complex_{};
  int64_t int_ = 0;
};

inline Scalar Scalar::from_raw(const void* raw, DType dtype) {
  return visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // aclScalar's bytes need not be aligned for T (a caller may hand any
    // address): copy them out rather than dereference a T*.
    T v;
    std::memcpy(&v, raw, sizeof v);
    if constexpr (is_complex_v<T>) {
      return Scalar(dtype, std::complex<double>(v.real(), v.imag()), 0);
    } else if constexpr (is_floating_v<T>) {
      return Scalar(dtype, {convert<double>(v), 0.0}, 0);
    } else {
      return Scalar(dtype, {}, static_cast<int64_t>(v));
    }
  });
}

}  // namespace npu::kernels
