// Element-level arithmetic with PyTorch's CPU semantics where C++ differs or
// leaves it undefined: wrapping signed integer arithmetic, Python-style
// integer division and modulo, NaN-propagating max/min, shifts by any amount.
// Shared by the unary, binary and ternary families.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels::pwmath {

// Signed overflow is undefined in C++; PyTorch's kernels wrap around in two's
// complement, so integer arithmetic goes through the unsigned type.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (is_integral_v<T>) {
    // unsigned short * unsigned short promotes to int and may overflow it.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <class T>
T wrap_neg(T a) {
  if constexpr (is_integral_v<T>) return wrap_sub(T(0), a);
  else return -a;
}

template <class T>
bool is_nan(const T& v) {
  if constexpr (is_floating_v<T>) return std::isnan(static_cast<double>(v));
  else return false;
}

// maximum/minimum: NaN wins, as in torch.maximum.
template <class M>
M max_nan(M a, M b) {
  if (is_nan(a) || is_nan(b)) return std::numeric_limits<M>::quiet_NaN();
  return a < b ? b : a;
}
template <class M>
M min_nan(M a, M b) {
  if (is_nan(a) || is_nan(b)) return std::numeric_limits<M>::quiet_NaN();
  return b < a ? b : a;
}

[[noreturn]] inline void throw_zero_division() { throw KernelError("ZeroDivisionError"); }

// Truncating division; MIN / -1 wraps instead of trapping.
template <class T>
T int_div_trunc(T a, T b) {
  if (b == 0) throw_zero_division();
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_neg(a);
  }
  return static_cast<T>(a / b);
}

// Python's a // b.
template <class T>
T int_div_floor(T a, T b) {
  const T q = int_div_trunc(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (b != -1 && a % b != 0 && ((a < 0) != (b < 0))) return static_cast<T>(q - 1);
  }
  return q;
}

// C's a % b (sign of the dividend).
template <class T>
T int_fmod(T a, T b) {
  if (b == 0) throw_zero_division();
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Python's a % b (sign of the divisor).
template <class T>
T int_remainder(T a, T b) {
  const T r = int_fmod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
  }
  return r;
}

template <class M>
M float_remainder(M a, M b) {
  const M r = std::fmod(a, b);
  return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
}

// Python's float a // b: floor of the exact quotient, computed from fmod so
// that 5 // 0.1 is 49 (0.1 is slightly more than a tenth), as PyTorch does.
// Each intermediate is rounded to the storage type T, as PyTorch's CPU
// kernels do for float16/bfloat16 (every vector op there returns T).
template <class M, class T = M>
M float_div_floor(M a, M b) {
  const auto r = [](M v) { return static_cast<M>(static_cast<T>(v)); };
  if (b == 0) return a / b;
  const M mod = r(std::fmod(a, b));
  M div = r(r(a - mod) / b);
  if (mod != 0 && ((b < 0) != (mod < 0))) div = r(div - M(1));
  if (div == 0) return std::copysign(M(0), r(a / b));
  M floor_div = std::floor(div);
  if (r(div - floor_div) > M(0.5)) floor_div = r(floor_div + M(1));
  return floor_div;
}

// Integer power by squaring, wrapping on overflow. Negative exponents give
// the truncated reciprocal: 1 for base 1, +-1 for base -1, else 0.
template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp != 0) {
    if (exp & 1) result = wrap_mul(result, base);
    exp = static_cast<T>(exp >> 1);
    base = wrap_mul(base, base);
  }
  return result;
}

// Shifts by a negative amount or by at least the bit width give 0 (left) or
// the sign fill (right), as PyTorch defines them.
template <class T>
T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return 0;
  }
  if (static_cast<U>(b) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
template <class T>
T shift_right(T a, T b) {
  using U = std::make_unsigned_t<T>;
  bool too_far = false;
  if constexpr (std::is_signed_v<T>) too_far = b < 0;
  too_far = too_far || static_cast<U>(b) >= sizeof(T) * 8;
  if (too_far) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    return 0;
  }
  return static_cast<T>(a >> b);
}

}  // namespace npu::kernels::pwmath
