// Element types of device tensors. The numeric values are aclDataType's, so a
// DType crosses the C API by a plain cast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace npu::model {

enum class DType : int32_t {
  Float32 = 0,
  Float16 = 1,
  Int8 = 2,
  Int32 = 3,
  UInt8 = 4,
  Int16 = 6,
  UInt16 = 7,
  UInt32 = 8,
  Int64 = 9,
  UInt64 = 10,
  Float64 = 11,
  Bool = 12,
  Complex64 = 16,
  Complex128 = 17,
  BFloat16 = 27,
};

// Returns the DType for an aclDataType value, or nullopt for values npu-emu
// does not support (string, int4, fp8 ...).
std::optional<DType> dtype_from_acl(int32_t value);

std::size_t itemsize(DType dtype);
const char* dtype_name(DType dtype);

bool is_floating_point(DType dtype);  // float16, bfloat16, float32, float64
bool is_complex(DType dtype);
bool is_integral(DType dtype);  // integers, bool excluded

// torch.promote_types: the smallest dtype both convert to without leaving the
// higher category (bool < integer < floating < complex). Throws
// std::invalid_argument for pairs PyTorch does not promote (uint16/32/64 with
// a signed integer of equal or smaller size).
DType promote_types(DType a, DType b);

// torch.can_cast: whether a result computed in `from` may be written into a
// tensor of `to` (no complex -> real, floating -> integer, or any -> bool).
bool can_cast(DType from, DType to);

}  // namespace npu::model
