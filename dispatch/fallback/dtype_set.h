// A set of at::ScalarType, usable in constant expressions, so that a table
// of what each aclnn op supports (dispatch/fallback/capability.h) can be
// written as constants and tested with a bit mask at launch time.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <c10/core/ScalarType.h>

namespace npu {

class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<c10::ScalarType> dtypes) {
    for (const c10::ScalarType d : dtypes) bits_ |= bit(d);
  }

  constexpr bool contains(c10::ScalarType dtype) const { return (bits_ & bit(dtype)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet other) const { return DTypeSet(bits_ | other.bits_); }
  constexpr DTypeSet operator&(DTypeSet other) const { return DTypeSet(bits_ & other.bits_); }
  constexpr bool operator==(DTypeSet other) const { return bits_ == other.bits_; }
  constexpr bool operator!=(DTypeSet other) const { return bits_ != other.bits_; }

  // PyTorch's names, bool and integers first, then floating and complex types
  // by width: "bool, uint8, int32, float16, bfloat16, float32"; "(none)" when empty.
  std::string to_string() const;

 private:
  static_assert(static_cast<int>(c10::ScalarType::NumOptions) <= 64, "DTypeSet is one 64-bit word");
  constexpr explicit DTypeSet(uint64_t bits) : bits_(bits) {}
  static constexpr uint64_t bit(c10::ScalarType dtype) {
    // Undefined and NumOptions are not dtypes: they are in no set.
    const int index = static_cast<int>(dtype);
    return index >= 0 && index < static_cast<int>(c10::ScalarType::NumOptions) ? uint64_t{1} << index : 0;
  }
  uint64_t bits_ = 0;
};

// Common sets, named as the kernels' dtype kinds are.
namespace dtypes {
inline constexpr DTypeSet kIntegral{c10::kByte, c10::kChar, c10::kShort, c10::kInt, c10::kLong};
inline constexpr DTypeSet kUnsignedWide{c10::kUInt16, c10::kUInt32, c10::kUInt64};
inline constexpr DTypeSet kFloating{c10::kHalf, c10::kBFloat16, c10::kFloat, c10::kDouble};
inline constexpr DTypeSet kComplex{c10::kComplexFloat, c10::kComplexDouble};
inline constexpr DTypeSet kBool{c10::kBool};
}  // namespace dtypes

}  // namespace npu
