// Bulk float <-> float16 / bfloat16 conversion on raw bit patterns, the hot
// loop of every cast to or from a reduced float. Eigen's scalar conversion
// branches per element (and uses F16C only when the whole build targets it),
// which made float -> half casts run at a third of memory bandwidth.
//
// Results are bit-exact with PyTorch's CPU casts on x86 (which convert with
// F16C / AVX2 vector code): round to nearest even, denormals kept, overflow
// to inf, and for float16 a NaN keeps its sign and the top of its payload
// with the quiet bit set (as VCVTPS2PH does). bfloat16 NaN becomes the
// canonical quiet NaN with the input's sign (Eigen's rule, unchanged).
#pragma once

#include <cstdint>
#include <cstring>

namespace npu::kernels {

// ---- scalar, branch-free: the loops below are built from these and the
// compiler vectorizes them; they are also the reference for the tests. -------

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// float -> IEEE binary16, round to nearest even. Integer-only so that the
// result does not depend on the FPU's rounding or flush-to-zero modes.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;  // magnitude
  // Normal half range (a >= 2^-14): rebias the exponent, round the 13 dropped
  // mantissa bits to nearest even; a carry out of the mantissa bumps the
  // exponent, up to inf (0x7c00) for everything >= 65520.
  const uint32_t normal = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
  // Denormal half range (a < 2^-14): shift the mantissa with its implicit bit
  // right by (126 - exponent) positions, rounding to nearest even. Shifts of
  // 25 and more give 0. The shift is computed for every input (the result is
  // selected below), so the exponent is clamped to the denormal range first:
  // unclamped, exponents >= 126 (normals, inf, NaN) gave shifts of 0 or
  // "negative" ones, and `x << (shift - 1)` by 2^32-1 is undefined.
  const uint32_t exp = a >> 23;
  const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const uint32_t denormal_exp = exp < 102u ? 102u : (exp > 112u ? 112u : exp);
  const uint32_t shift = 126u - denormal_exp;  // in [14, 24]
  const uint32_t kept = mant >> shift;
  const uint32_t rest = mant & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  const uint32_t denormal = exp >= 102u ? kept + (rest > halfway || (rest == halfway && (kept & 1u))) : 0u;
  uint32_t h = a < 0x38800000u ? denormal : normal;
  h = a >= 0x47800000u ? 0x7c00u : h;                            // too large: inf
  h = a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : h;      // NaN: quiet, payload top
  return static_cast<uint16_t>(sign | h);
}

// IEEE binary16 -> float, exact. A NaN keeps its payload and becomes quiet.
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  // Normal: rebias. Inf/NaN: exponent all ones (NaN gets the quiet bit).
  const uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const uint32_t special = 0x7f800000u | (m << 13) | (m != 0 ? 0x400000u : 0u);
  // Denormal (and zero): m * 2^-24 is exact in float.
  const uint32_t denormal = float_bits(static_cast<float>(m) * 0x1.0p-24f);
  const uint32_t mag = e == 0 ? denormal : (e == 31 ? special : normal);
  return bits_float(sign | mag);
}

// float -> bfloat16, round to nearest even; NaN -> quiet NaN with its sign.
inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(nan ? ((u >> 16) & 0x8000u) | 0x7fc0u : rounded);
}

inline float bfloat16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// ---- bulk: out[i] = convert(in[i]) for i < n. F16C is used for float16 when
// the CPU has it (checked once at run time); the results are identical. -------

void float_to_half_n(const float* in, uint16_t* out, int64_t n);
void half_to_float_n(const uint16_t* in, float* out, int64_t n);
void float_to_bfloat16_n(const float* in, uint16_t* out, int64_t n);
void bfloat16_to_float_n(const uint16_t* in, float* out, int64_t n);

}  // namespace npu::kernels
