// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator. A 64-bit key (the seed) and a 128-bit
// counter map to four independent 32-bit random words; no state is carried
// from one call to the next, so element i of a tensor can be generated on any
// thread, in any order, from (seed, counter of i) alone.
#pragma once

#include <array>
#include <cstdint>

namespace npu::kernels {

using PhiloxBlock = std::array<uint32_t, 4>;

namespace philox_detail {

inline constexpr uint32_t kMul0 = 0xD2511F53u;
inline constexpr uint32_t kMul1 = 0xCD9E8D57u;
inline constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

inline void mul_hi_lo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t product = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}

inline PhiloxBlock round(const PhiloxBlock& c, uint32_t k0, uint32_t k1) {
  uint32_t hi0, lo0, hi1, lo1;
  mul_hi_lo(kMul0, c[0], hi0, lo0);
  mul_hi_lo(kMul1, c[2], hi1, lo1);
  return {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
}

}  // namespace philox_detail

// The four words for `counter` under `seed`: ten rounds, the key bumped by
// the Weyl constants between rounds.
inline PhiloxBlock philox4x32_10(uint64_t seed, const PhiloxBlock& counter) {
  uint32_t k0 = static_cast<uint32_t>(seed);
  uint32_t k1 = static_cast<uint32_t>(seed >> 32);
  PhiloxBlock c = counter;
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += philox_detail::kWeyl0;
      k1 += philox_detail::kWeyl1;
    }
    c = philox_detail::round(c, k0, k1);
  }
  return c;
}

// The block of a 64-bit counter index (the high counter words stay zero).
inline PhiloxBlock philox4x32_10(uint64_t seed, uint64_t index) {
  return philox4x32_10(seed, PhiloxBlock{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u});
}

// Uniform floats from random words, never reaching 1.
inline float uniform_float(uint32_t w) { return static_cast<float>(w >> 8) * (1.0f / 16777216.0f); }  // [0, 1), 24 bits
inline double uniform_double(uint32_t hi, uint32_t lo) {                                              // [0, 1), 53 bits
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

}  // namespace npu::kernels
