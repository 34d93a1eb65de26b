// Reading narrow floating-point elements as wider types, fast: the loads
// under reductions and scans. Eigen's portable half conversion branches and
// does not vectorize; these do (GCC / Clang vector extensions, so SSE or
// NEON code without ISA-specific intrinsics), and x86 CPUs with F16C get a
// run-time-selected path while the build stays baseline x86-64.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

// half -> float without branches (Eigen's portable conversion has some), so
// reductions over half inputs vectorize: shift the exponent and mantissa into
// float position, rebias by multiplying with 2^112 (exact, and correct for
// subnormals too), patch infinities / NaN, restore the sign.
inline float half_to_float(half h) {
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  const uint32_t magnitude = static_cast<uint32_t>(bits & 0x7fffu) << 13;
  float f;
  std::memcpy(&f, &magnitude, sizeof f);
  f *= 0x1p112f;
  uint32_t out;
  std::memcpy(&out, &f, sizeof out);
  out = magnitude >= (0x7c00u << 13) ? (magnitude | 0x7f800000u) : out;
  out |= static_cast<uint32_t>(bits & 0x8000u) << 16;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

// Reads an input element as the accumulator type (convert, with the fast
// path for half).
template <class Acc, class In>
inline Acc widen(const In& v) {
  if constexpr (std::is_same_v<In, half> && !is_complex_v<Acc>) {
    return static_cast<Acc>(half_to_float(v));
  } else {
    return convert<Acc>(v);
  }
}

// Four consecutive elements as a vector of float (GCC / Clang vector
// extensions: SSE or NEON code without ISA-specific intrinsics). half and
// bfloat16 are widened with integer ops, which vectorize where a scalar
// conversion call would not.
using Float4 __attribute__((vector_size(16))) = float;

template <class To, class From>
inline To bit_cast_vec(const From& v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

template <class In>
inline Float4 load_float4(const In* p) {
  Float4 f;
  if constexpr (std::is_same_v<In, float>) {
    std::memcpy(&f, p, sizeof f);
  } else {
    using Bits4 __attribute__((vector_size(8))) = uint16_t;
    using Word4 __attribute__((vector_size(16))) = uint32_t;
    Bits4 bits;
    std::memcpy(&bits, p, sizeof bits);
    const Word4 w = __builtin_convertvector(bits, Word4);
    if constexpr (std::is_same_v<In, bfloat16>) {
      return bit_cast_vec<Float4>(w << 16);
    } else {  // half, as half_to_float above
      const Word4 magnitude = (w & 0x7fffu) << 13;
      f = bit_cast_vec<Float4>(magnitude) * 0x1p112f;
      Word4 out = bit_cast_vec<Word4>(f);
      out = magnitude >= (0x7c00u << 13) ? (magnitude | 0x7f800000u) : out;
      out |= (w & 0x8000u) << 16;
      f = bit_cast_vec<Float4>(out);
    }
  }
  return f;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// half has no portable vector conversion fast enough to keep up with memory;
// x86 CPUs with F16C convert 8 at a time. Chosen at run time, so the build
// stays baseline x86-64. Sums whole blocks of 16 and reports how far it got.
__attribute__((target("avx,f16c"))) inline double sum_half_f16c(const half* p, int64_t n, int64_t& done) {
  double total = 0;
  int64_t i = 0;
  while (i + 16 <= n) {
    const int64_t end = std::min(n, i + 1024);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    for (; i + 16 <= end; i += 16) {
      s0 = _mm256_add_ps(s0, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
      s1 = _mm256_add_ps(s1, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 8))));
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, _mm256_add_ps(s0, s1));
    for (const float l : lanes) total += l;
  }
  done = i;
  return total;
}

inline bool cpu_has_f16c() {
  static const bool has = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return has;
}
#define NPU_EMU_HAVE_F16C_PATH 1
#endif

}  // namespace npu::kernels
