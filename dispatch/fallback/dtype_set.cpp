#include "dispatch/fallback/dtype_set.h"

#include <array>

namespace npu {

namespace {

// The order a reader expects (kinds, then width), not the enum's order,
// which puts bool and bfloat16 after the complex types.
constexpr std::array kReadableOrder{
    c10::kBool,  c10::kByte,     c10::kUInt16, c10::kUInt32,        c10::kUInt64,
    c10::kChar,  c10::kShort,    c10::kInt,    c10::kLong,          c10::kHalf,
    c10::kBFloat16, c10::kFloat, c10::kDouble, c10::kComplexHalf,   c10::kComplexFloat,
    c10::kComplexDouble};

void append(std::string& out, c10::ScalarType dtype) {
  if (!out.empty()) out += ", ";
  out += c10::getDtypeNames(dtype).first;
}

}  // namespace

std::string DTypeSet::to_string() const {
  std::string out;
  DTypeSet listed;
  for (const c10::ScalarType d : kReadableOrder) {
    listed = listed | DTypeSet{d};
    if (contains(d)) append(out, d);
  }
  // Anything else (float8 types, quantized types) in the enum's order.
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    const auto d = static_cast<c10::ScalarType>(i);
    if (contains(d) && !listed.contains(d)) append(out, d);
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace npu
