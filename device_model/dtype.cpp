#include "device_model/dtype.h"

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

}  // namespace npu::model
