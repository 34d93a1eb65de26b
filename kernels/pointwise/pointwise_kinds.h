// The dtype vocabulary the pointwise families share: which kinds of element
// an op accepts (bool, integer, floating, complex), the C++ <-> DType map for
// the dtypes they are instantiated for, and the error for the rest.
#pragma once

#include <string>
#include <utility>
#include <type_traits>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

// Bit flags: an op's support is the union of the kinds it accepts.
enum Kind : unsigned { kBool = 1u, kInt = 2u, kFloat = 4u, kComplex = 8u };
inline constexpr unsigned kAnyKind = kBool | kInt | kFloat | kComplex;
inline constexpr unsigned kRealKinds = kBool | kInt | kFloat;
inline constexpr unsigned kIntFloat = kInt | kFloat;  // real numbers: not bool, not complex

template <class T>
constexpr unsigned kind_of() {
  if constexpr (std::is_same_v<T, bool>) return kBool;
  else if constexpr (is_complex_v<T>) return kComplex;
  else if constexpr (is_floating_v<T>) return kFloat;
  else return kInt;
}

inline unsigned kind_of(DType dtype) {
  if (dtype == DType::Bool) return kBool;
  if (model::is_complex(dtype)) return kComplex;
  if (model::is_floating_point(dtype)) return kFloat;
  return kInt;
}

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else if constexpr (std::is_same_v<T, half>) return DType::Float16;
  else if constexpr (std::is_same_v<T, bfloat16>) return DType::BFloat16;
  else if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, double>) return DType::Float64;
  else {
    static_assert(std::is_same_v<T, complex64>, "not a pointwise dtype");
    return DType::Complex64;
  }
}

// "<op>: unsupported dtype <dtype>", the one wording every family uses.
[[noreturn]] inline void throw_unsupported(const char* op, DType dtype) {
  throw KernelError(std::string(op) + ": unsupported dtype " + model::dtype_name(dtype));
}

// Like visit_dtype, restricted to the dtypes pointwise kernels are built for
// (bool, uint8, int8..int64, float16, bfloat16, float32, float64, complex64),
// which keeps their instantiation count down.
template <class F>
decltype(auto) visit_pointwise_dtype(const char* op, DType dtype, F&& f) {
  switch (dtype) {
    case DType::Bool: return f(TypeTag<bool>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Complex64: return f(TypeTag<complex64>{});
    default: throw_unsupported(op, dtype);
  }
}

// How an op's compute dtype and result dtype follow from the common dtype of
// its inputs.
enum class ResultRule {
  Same,           // computes in and returns the common dtype
  Float,          // bool/integer inputs compute in the default float dtype
  RealOfComplex,  // like Same, but complex results are real (abs)
  Bool,           // computes in the common dtype, returns bool (comparisons)
  Logical,        // inputs become bool ("!= 0"), returns bool
};

// One row of a family's op table.
struct OpInfo {
  const char* name;
  unsigned kinds;  // kinds of common dtype accepted
  ResultRule rule;
};

// The kinds of dtype an op's kernel is instantiated for.
constexpr unsigned compute_kinds(const OpInfo& info) {
  switch (info.rule) {
    case ResultRule::Float: return info.kinds & (kFloat | kComplex);
    case ResultRule::Logical: return kBool;
    default: return info.kinds;
  }
}

namespace detail {
template <class Enum, class F, std::size_t... I>
void visit_op(Enum e, F& f, std::index_sequence<I...>) {
  ((static_cast<std::size_t>(e) == I ? (f(std::integral_constant<Enum, static_cast<Enum>(I)>{}), true) : false) ||
   ...);
}
}  // namespace detail

// Calls f(std::integral_constant<Enum, e>{}) for the runtime value `e` of an
// op enum whose values are 0 .. N-1, so each op's kernel is a template
// instantiated once per dtype rather than a switch inside the element loop.
template <class Enum, std::size_t N, class F>
void visit_op(Enum e, F&& f) {
  detail::visit_op(e, f, std::make_index_sequence<N>{});
}

}  // namespace npu::kernels
