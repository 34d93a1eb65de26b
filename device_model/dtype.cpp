#include "device_model/dtype.h"

#include <stdexcept>

namespace npu::model {

std::optional<DType> dtype_from_acl(int32_t value) {
  switch (static_cast<DType>(value)) {
    case DType::Float32:
    case DType::Float16:
    case DType::Int8:
    case DType::Int32:
    case DType::UInt8:
    case DType::Int16:
    case DType::UInt16:
    case DType::UInt32:
    case DType::Int64:
    case DType::UInt64:
    case DType::Float64:
    case DType::Bool:
    case DType::Complex64:
    case DType::Complex128:
    case DType::BFloat16:
      return static_cast<DType>(value);
  }
  return std::nullopt;
}

std::size_t itemsize(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
      return 1;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int16:
    case DType::UInt16:
      return 2;
    case DType::Float32:
    case DType::Int32:
    case DType::UInt32:
      return 4;
    case DType::Float64:
    case DType::Int64:
    case DType::UInt64:
    case DType::Complex64:
      return 8;
    case DType::Complex128:
      return 16;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::Int8: return "int8";
    case DType::Int32: return "int32";
    case DType::UInt8: return "uint8";
    case DType::Int16: return "int16";
    case DType::UInt16: return "uint16";
    case DType::UInt32: return "uint32";
    case DType::Int64: return "int64";
    case DType::UInt64: return "uint64";
    case DType::Float64: return "float64";
    case DType::Bool: return "bool";
    case DType::Complex64: return "complex64";
    case DType::Complex128: return "complex128";
    case DType::BFloat16: return "bfloat16";
  }
  return "unknown";
}

bool is_floating_point(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 ||
         dtype == DType::Float64;
}

bool is_complex(DType dtype) { return dtype == DType::Complex64 || dtype == DType::Complex128; }

bool is_integral(DType dtype) {
  return !is_floating_point(dtype) && !is_complex(dtype) && dtype != DType::Bool;
}

namespace {

bool is_unsigned(DType d) {
  return d == DType::UInt8 || d == DType::UInt16 || d == DType::UInt32 || d == DType::UInt64;
}

// The signed integer type of `bytes` bytes, if there is one.
std::optional<DType> signed_of_size(std::size_t bytes) {
  switch (bytes) {
    case 1: return DType::Int8;
    case 2: return DType::Int16;
    case 4: return DType::Int32;
    case 8: return DType::Int64;
  }
  return std::nullopt;
}

DType promote_integers(DType a, DType b) {
  if (is_unsigned(a) == is_unsigned(b)) return itemsize(a) >= itemsize(b) ? a : b;
  const DType u = is_unsigned(a) ? a : b;
  const DType s = is_unsigned(a) ? b : a;
  if (itemsize(s) > itemsize(u)) return s;
  // Mixed signedness needs a signed type wider than the unsigned one; PyTorch
  // only defines that for uint8.
  if (u == DType::UInt8) return *signed_of_size(2 * itemsize(u));
  throw std::invalid_argument(std::string("no promotion between ") + dtype_name(a) + " and " + dtype_name(b));
}

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b || b == DType::Bool) return a;
  if (a == DType::Bool) return b;
  if (is_complex(a) || is_complex(b)) {
    const bool wide = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 || b == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  if (is_floating_point(a) && is_floating_point(b)) {
    // float16 and bfloat16 trade range for precision; neither holds the other.
    if (itemsize(a) == 2 && itemsize(b) == 2) return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (is_floating_point(a)) return a;
  if (is_floating_point(b)) return b;
  return promote_integers(a, b);
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && !is_floating_point(to) && !is_complex(to)) return false;
  return from == DType::Bool || to != DType::Bool;
}

}  // namespace npu::model
