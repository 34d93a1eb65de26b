// The one place a runtime DType becomes a C++ type. Kernels are templates over
// the element type; they are instantiated by visiting the dtype once here.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
inline constexpr bool is_complex_v = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;
template <class T>
inline constexpr bool is_integral_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic is carried out in: reduced floats compute in float and
// round once, as PyTorch's CPU kernels do, so results match bit for bit.
template <class T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// Calls f(TypeTag<T>{}) with T the element type of `dtype`.
template <class F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::UInt16: return f(TypeTag<uint16_t>{});
    case DType::UInt32: return f(TypeTag<uint32_t>{});
    case DType::UInt64: return f(TypeTag<uint64_t>{});
    case DType::Bool: return f(TypeTag<bool>{});
    case DType::Complex64: return f(TypeTag<complex64>{});
    case DType::Complex128: return f(TypeTag<complex128>{});
  }
  throw KernelError(std::string("unsupported dtype ") + model::dtype_name(dtype));
}

// Value conversion between any two element types, with PyTorch's rules:
// complex -> real drops the imaginary part, anything (complex too) -> bool is "!= 0",
// reduced floats go through float.
template <class To, class From>
inline To convert(const From& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From> && std::is_same_v<To, bool>) {
    return v.real() != 0 || v.imag() != 0;  // "!= 0" of the whole number, as PyTorch
  } else if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    return convert<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    if constexpr (is_complex_v<From>) {
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else {
      return To(convert<R>(v), R(0));
    }
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_reduced_float_v<From>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace npu::kernels
