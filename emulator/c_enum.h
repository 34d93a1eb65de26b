// Enum arguments of the C API, read as the int the caller passed.
#pragma once

#include <cstring>
#include <type_traits>

namespace npu::emu {

// A C caller (ctypes, the real torch_npu, a test) can pass any int where the
// C API declares one of its enums. In C++ an enum without a fixed underlying
// type holds only the values of its enumerators' bit range, and reading any
// other value as the enum is undefined (UBSan: "load of value 9, which is not
// a valid value for type 'aclrtMemcpyKind'"). So the argument is taken by
// reference and its bytes are read as an int, to be checked before it is
// used as the enum.
template <class E>
int c_enum_value(const E& arg) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int), "a C API enum (int-sized)");
  int value = 0;
  std::memcpy(&value, &arg, sizeof value);
  return value;
}

}  // namespace npu::emu
