#include "kernels/copy/reduced_float_bits.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NPU_EMU_HAVE_F16C_PATH 1
#endif

namespace npu::kernels {

namespace {

#ifdef NPU_EMU_HAVE_F16C_PATH
// The build targets baseline x86-64, so F16C code is compiled for it per
// function and only called when the CPU reports the feature.
bool cpu_has_f16c() {
  static const bool has = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return has;
}

__attribute__((target("avx,f16c"))) int64_t float_to_half_f16c(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_loadu_ps(in + i);
    const __m256 b = _mm256_loadu_ps(in + i + 8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8), _mm256_cvtps_ph(b, _MM_FROUND_TO_NEAREST_INT));
  }
  return i;  // elements done; the caller finishes the tail
}

__attribute__((target("avx,f16c"))) int64_t half_to_float_f16c(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 8));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(a));
    _mm256_storeu_ps(out + i + 8, _mm256_cvtph_ps(b));
  }
  return i;
}
#endif

}  // namespace

void float_to_half_n(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
#ifdef NPU_EMU_HAVE_F16C_PATH
  if (cpu_has_f16c()) i = float_to_half_f16c(in, out, n);
#endif
  for (; i < n; ++i) out[i] = float_to_half_bits(in[i]);
}

void half_to_float_n(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
#ifdef NPU_EMU_HAVE_F16C_PATH
  if (cpu_has_f16c()) i = half_to_float_f16c(in, out, n);
#endif
  for (; i < n; ++i) out[i] = half_bits_to_float(in[i]);
}

void float_to_bfloat16_n(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bfloat16_bits(in[i]);
}

void bfloat16_to_float_n(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bfloat16_bits_to_float(in[i]);
}

}  // namespace npu::kernels
