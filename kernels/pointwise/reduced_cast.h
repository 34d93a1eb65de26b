// Scalar float <-> float16/bfloat16 conversions for the inner loops of the
// pointwise kernels. Eigen's own conversion branches on NaN (and uses F16C
// only when the whole build targets it), which keeps those loops scalar; these
// go through the branch-free bit routines of the casts, so the loops
// vectorize. Same results as the casts (kernels/copy/reduced_float_bits.h).
#pragma once

#include <type_traits>

#include "kernels/copy/reduced_float_bits.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

// T -> opmath_t<T>, exact.
template <class T>
opmath_t<T> widen(T v) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16_bits_to_float(Eigen::numext::bit_cast<uint16_t>(v));
  } else if constexpr (std::is_same_v<T, half>) {
    return half_bits_to_float(Eigen::numext::bit_cast<uint16_t>(v));
  } else {
    return static_cast<opmath_t<T>>(v);
  }
}

// opmath_t<T> -> T, round to nearest even.
template <class T>
T narrow(opmath_t<T> f) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    return Eigen::numext::bit_cast<T>(float_to_bfloat16_bits(f));
  } else if constexpr (std::is_same_v<T, half>) {
    return Eigen::numext::bit_cast<T>(float_to_half_bits(f));
  } else {
    return static_cast<T>(f);
  }
}

}  // namespace npu::kernels
