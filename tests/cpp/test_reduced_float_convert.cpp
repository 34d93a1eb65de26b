// Casts to and from float16/bfloat16: the bulk converters (F16C when the CPU
// has it, branch-free integer code otherwise) against hand-checked bit
// patterns, against each other, and through copy() for every path (dense,
// strided, via float for other dtypes).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/copy/reduced_float_bits.h"
#include "kernels/core/dtype_dispatch.h"

using namespace npu::kernels;

namespace {

float from_bits(uint32_t u) { return bits_float(u); }

struct Case {
  float in;
  uint16_t want;
};

// float -> float16, round to nearest even.
const std::vector<Case> kHalfCases = {
    {0.0f, 0x0000},
    {-0.0f, 0x8000},
    {1.0f, 0x3c00},
    {-2.0f, 0xc000},
    {1.0f + 0x1.0p-11f, 0x3c00},        // tie, to even (down)
    {1.0f + 3 * 0x1.0p-11f, 0x3c02},    // tie, to even (up)
    {1.0f + 0x1.0p-11f + 0x1.0p-20f, 0x3c01},  // just above the tie
    {65504.0f, 0x7bff},                 // largest finite
    {65519.996f, 0x7bff},               // below the overflow tie
    {65520.0f, 0x7c00},                 // overflow tie rounds to inf
    {1e10f, 0x7c00},
    {-1e10f, 0xfc00},
    {std::numeric_limits<float>::infinity(), 0x7c00},
    {-std::numeric_limits<float>::infinity(), 0xfc00},
    {std::numeric_limits<float>::max(), 0x7c00},
    {0x1.0p-14f, 0x0400},               // smallest normal
    {0x1.0p-14f - 0x1.0p-25f, 0x0400},  // tie between largest denormal and smallest normal: even
    {0x1.0p-24f, 0x0001},               // smallest denormal
    {0x1.0p-25f, 0x0000},               // tie with zero: even
    {0x1.0p-25f + 0x1.0p-40f, 0x0001},  // just above that tie
    {3 * 0x1.0p-25f, 0x0002},           // tie between 1 and 2 ulps: even
    {5 * 0x1.0p-25f, 0x0002},           // tie between 2 and 3 ulps: even
    {-0x1.0p-24f, 0x8001},
    {0x1.0p-26f, 0x0000},
    {std::numeric_limits<float>::denorm_min(), 0x0000},  // float denormal underflows
    {-std::numeric_limits<float>::denorm_min(), 0x8000},
    {from_bits(0x7fc00000), 0x7e00},    // canonical NaN
    {from_bits(0xffc00000), 0xfe00},    // NaN keeps its sign
    {from_bits(0x7f800001), 0x7e00},    // signalling NaN becomes quiet
    {from_bits(0x7fffe000), 0x7fff},    // payload top bits kept (as F16C)
};

// float -> bfloat16, round to nearest even.
const std::vector<Case> kBf16Cases = {
    {1.0f, 0x3f80},
    {1.0f + 0x1.0p-8f, 0x3f80},          // tie, to even (down)
    {1.0f + 3 * 0x1.0p-8f, 0x3f82},      // tie, to even (up)
    {-0.0f, 0x8000},
    {std::numeric_limits<float>::max(), 0x7f80},  // rounds up into inf
    {std::numeric_limits<float>::infinity(), 0x7f80},
    {std::numeric_limits<float>::denorm_min(), 0x0000},
    {from_bits(0x00018000), 0x0002},     // denormal tie, to even (up)
    {from_bits(0x7fc00001), 0x7fc0},
    {from_bits(0xff800001), 0xffc0},
};

template <class T>
TensorView view_of(std::vector<T>& v, DType dt, Shape sizes, Shape strides = {}) {
  return TensorView{v.data(), dt, sizes, strides.empty() ? contiguous_strides(sizes) : strides};
}

// A spread of float bit patterns: every exponent, assorted mantissas, both signs.
std::vector<float> sweep() {
  std::vector<float> v;
  uint32_t x = 12345;
  for (uint32_t e = 0; e < 256; ++e) {
    for (int k = 0; k < 64; ++k) {
      x = x * 1664525u + 1013904223u;
      v.push_back(from_bits((e << 23) | (x & 0x807fffffu)));
    }
    v.push_back(from_bits(e << 23));
    v.push_back(from_bits((e << 23) | 0x1000u));  // float16 tie pattern
    v.push_back(from_bits((e << 23) | 0x8000u));  // bfloat16 tie pattern
  }
  return v;
}

}  // namespace

TEST_CASE("float -> float16 rounds to nearest even, keeps denormals, overflows to inf", "[convert]") {
  std::vector<float> in;
  for (const auto& c : kHalfCases) in.push_back(c.in);
  // Also at every offset of a 16-wide vector, so both the vector body and the tail see each case.
  std::vector<float> padded(in.size() * 17);
  for (std::size_t i = 0; i < padded.size(); ++i) padded[i] = in[i % in.size()];
  std::vector<uint16_t> out(padded.size());
  float_to_half_n(padded.data(), out.data(), static_cast<int64_t>(padded.size()));
  for (std::size_t i = 0; i < padded.size(); ++i) {
    const auto& c = kHalfCases[i % in.size()];
    INFO("input bits " << std::hex << float_bits(c.in));
    REQUIRE(float_to_half_bits(c.in) == c.want);
    REQUIRE(out[i] == c.want);
  }
}

// The exact float16 of a finite float, computed in double (where every
// scaling below is exact) with the FPU's round to nearest even.
uint16_t reference_half_bits(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;
  // Denormal range: a multiple of 2^-24 (rounding up to 2^-14 gives 0x0400, the smallest normal).
  if (a < 0x1.0p-14) return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1.0p24));
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  double m = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits, in [1024, 2048]
  int exponent = e - 1;
  if (m == 2048.0) {  // rounding carried into the next binade
    m = 1024.0;
    ++exponent;
  }
  return sign | static_cast<uint16_t>(((exponent + 15) << 10) | (static_cast<uint32_t>(m) - 1024u));
}

TEST_CASE("float -> float16 is exact for every float exponent", "[convert]") {
  // Every exponent field (denormals, normals, the overflow range, inf and NaN)
  // with mantissas at the edges and at the rounding boundaries. UBSan found
  // the branch-free converter shifting by 2^32-1 for exponents of 126 and
  // above (a shift computed for the unused denormal result).
  std::vector<float> in;
  for (uint32_t exponent = 0; exponent < 256; ++exponent) {
    for (const uint32_t mantissa : {0x0u, 0x1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x400000u, 0x7fffffu}) {
      for (const uint32_t sign : {0x0u, 0x80000000u}) in.push_back(bits_float(sign | (exponent << 23) | mantissa));
    }
  }
  std::vector<uint16_t> out(in.size());
  float_to_half_n(in.data(), out.data(), static_cast<int64_t>(in.size()));
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("input bits " << std::hex << float_bits(in[i]));
    const uint16_t got = float_to_half_bits(in[i]);
    REQUIRE(out[i] == got);
    if (std::isnan(in[i])) {
      REQUIRE((got & 0x7e00u) == 0x7e00u);  // a quiet NaN
      REQUIRE((got & 0x8000u) == (std::signbit(in[i]) ? 0x8000u : 0u));
    } else {
      REQUIRE(got == reference_half_bits(in[i]));
    }
  }
}

TEST_CASE("float -> bfloat16 rounds to nearest even; NaN is quiet with its sign", "[convert]") {
  for (const auto& c : kBf16Cases) {
    INFO("input bits " << std::hex << float_bits(c.in));
    REQUIRE(float_to_bfloat16_bits(c.in) == c.want);
    uint16_t bulk = 0;
    float_to_bfloat16_n(&c.in, &bulk, 1);
    REQUIRE(bulk == c.want);
  }
}

TEST_CASE("bulk and scalar converters agree, and match Eigen except NaN payloads", "[convert]") {
  const auto in = sweep();
  const auto n = static_cast<int64_t>(in.size());
  std::vector<uint16_t> h(n), b(n);
  float_to_half_n(in.data(), h.data(), n);
  float_to_bfloat16_n(in.data(), b.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    INFO("input bits " << std::hex << float_bits(in[i]));
    REQUIRE(h[i] == float_to_half_bits(in[i]));
    REQUIRE(b[i] == Eigen::numext::bit_cast<uint16_t>(bfloat16(in[i])));
    if (!std::isnan(in[i])) REQUIRE(h[i] == Eigen::numext::bit_cast<uint16_t>(half(in[i])));
  }
  // Every float16 pattern back to float: exact, NaN stays NaN (quiet).
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> f(65536), g(65536);
  half_to_float_n(all.data(), f.data(), 65536);
  bfloat16_to_float_n(all.data(), g.data(), 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    INFO("half bits " << std::hex << i);
    REQUIRE(float_bits(f[i]) == float_bits(half_bits_to_float(static_cast<uint16_t>(i))));
    const float eigen = static_cast<float>(Eigen::numext::bit_cast<half>(static_cast<uint16_t>(i)));
    if (std::isnan(eigen)) {
      REQUIRE(std::isnan(f[i]));
      REQUIRE((float_bits(f[i]) & 0x400000u) != 0);
    } else {
      REQUIRE(float_bits(f[i]) == float_bits(eigen));
    }
    REQUIRE(float_bits(g[i]) == (i << 16));
  }
}

TEST_CASE("copy converts to and from reduced floats the same on every path", "[convert]") {
  // Large enough to run in parallel chunks, odd length for a tail.
  const int64_t n = (1 << 21) + 7;
  std::vector<float> src(n);
  const auto pattern = sweep();
  for (int64_t i = 0; i < n; ++i) src[i] = pattern[i % pattern.size()];
  std::vector<half> dense(n), strided(n);
  copy(view_of(dense, DType::Float16, {n}), view_of(src, DType::Float32, {n}));
  // Strided: a transposed 2-D view walks element by element.
  const int64_t rows = 7, cols = n / 7;
  copy(view_of(strided, DType::Float16, {cols, rows}, {1, cols}),
       view_of(src, DType::Float32, {cols, rows}, {1, cols}));
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t want = float_to_half_bits(src[i]);
    REQUIRE(Eigen::numext::bit_cast<uint16_t>(dense[i]) == want);
    if (i < rows * cols && !std::isnan(src[i])) REQUIRE(Eigen::numext::bit_cast<uint16_t>(strided[i]) == want);
  }
  // float16 -> float back, and pairs that go through float: double -> half,
  // half -> bfloat16, int32 -> half, half -> int64, half -> bool.
  std::vector<float> back(n);
  copy(view_of(back, DType::Float32, {n}), view_of(dense, DType::Float16, {n}));
  std::vector<double> d(1000);
  for (int i = 0; i < 1000; ++i) d[i] = (i - 500) * 100.0625 + 1e-9 * i;
  std::vector<half> dh(1000);
  copy(view_of(dh, DType::Float16, {1000}), view_of(d, DType::Float64, {1000}));
  std::vector<bfloat16> hb(1000);
  copy(view_of(hb, DType::BFloat16, {1000}), view_of(dh, DType::Float16, {1000}));
  std::vector<int32_t> ints(1000);
  for (int i = 0; i < 1000; ++i) ints[i] = (i - 500) * 977;
  std::vector<half> ih(1000);
  copy(view_of(ih, DType::Float16, {1000}), view_of(ints, DType::Int32, {1000}));
  std::vector<int64_t> hi(1000);
  copy(view_of(hi, DType::Int64, {1000}), view_of(dh, DType::Float16, {1000}));
  std::vector<uint8_t> hbool(1000);
  copy(view_of(hbool, DType::Bool, {1000}), view_of(dh, DType::Float16, {1000}));
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isnan(src[i])) REQUIRE(float_bits(back[i]) == float_bits(static_cast<float>(dense[i])));
  }
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(Eigen::numext::bit_cast<uint16_t>(dh[i]) == float_to_half_bits(static_cast<float>(d[i])));
    REQUIRE(Eigen::numext::bit_cast<uint16_t>(hb[i]) ==
            Eigen::numext::bit_cast<uint16_t>(bfloat16(static_cast<float>(dh[i]))));
    REQUIRE(Eigen::numext::bit_cast<uint16_t>(ih[i]) == float_to_half_bits(static_cast<float>(ints[i])));
    REQUIRE(hi[i] == static_cast<int64_t>(static_cast<float>(dh[i])));
    REQUIRE(hbool[i] == (static_cast<float>(dh[i]) != 0.0f ? 1 : 0));
  }
}
