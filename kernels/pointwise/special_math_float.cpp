#include "kernels/pointwise/special_math_float.h"

#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/pointwise/special_math.h"

namespace npu::kernels::special {

namespace {

constexpr float kPiF = 3.14159265358979323846f;
constexpr float kInfF = std::numeric_limits<float>::infinity();

// Sum of c[k] T_k(x / 2) (the first coefficient halved: Cephes' convention
// for Chebyshev series), by Clenshaw's recurrence in float; x b_{k+1} - b_{k+2}
// is one fused step, as in CPU's FMA builds.
template <std::size_t N>
float chebyshev_series(float x, const float (&c)[N]) {
  float b_next = 0.0f;  // b_{k+2}
  float b = c[0];       // b_{k+1}
  float b_prev = 0.0f;
  for (std::size_t k = 1; k < N; ++k) {
    b_prev = b_next;
    b_next = b;
    b = std::fma(x, b_next, -b_prev) + c[k];
  }
  return 0.5f * (b - b_prev);
}

// Chebyshev coefficients (Cephes' i1e, truncated to float precision) of
// exp(-x) I1(x) / x on [0, 8], in the variable x / 2 - 2 ...
constexpr float kI1eSmall[] = {
    9.38153738649577178388E-9f,  -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
    -8.56872026469545474066E-7f, 3.47025130813767847674E-6f,  -1.32731636560394358279E-5f,
    4.78156510755005422638E-5f,  -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
    -1.51357245063125314899E-3f, 4.15642294431288815669E-3f,  -1.05640848946261981558E-2f,
    2.47264490306265168283E-2f,  -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
    -1.76416518357834055153E-1f, 2.52587186443633654823E-1f};
// ... and of exp(-x) sqrt(x) I1(x) on (8, inf), in the variable 32 / x - 2.
constexpr float kI1eLarge[] = {-3.83538038596423702205E-9f, -2.63146884688951950684E-8f,
                               -2.51223623787020892529E-7f, -3.88256480887769039346E-6f,
                               -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
                               7.78576235018280120474E-1f};

// Above this |x| expf overflows: CPU's float i1 turns into inf (or NaN at
// inf) there although I1 is finite up to ~92; the double path is exact.
constexpr float kI1FloatLimit = 88.0f;

}  // namespace

float trigamma_float(float x) {
  float sign = 1.0f;
  float sum = 0.0f;
  if (x < 0.5f) {
    // psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x), with pi x rounded to float:
    // this rounding is where CPU's float trigamma loses digits near the poles.
    sign = -1.0f;
    const float s = std::sin(kPiF * x);
    sum -= (kPiF * kPiF) / (s * s);
    x = 1.0f - x;
  }
  for (int i = 0; i < 6; ++i) {  // psi'(x) = 1 / x^2 + psi'(x + 1)
    sum += 1.0f / (x * x);
    x += 1.0f;
  }
  // psi'(x) ~ (1 + 1/(2x) + 1/(6x^2) - 1/(30x^4) + 1/(42x^6)) / x
  const float z = 1.0f / (x * x);
  const float series = std::fma(-z, std::fma(-z, 1.0f / 42.0f, 1.0f / 30.0f), 1.0f / 6.0f);
  sum += std::fma(z, series, 1.0f + 1.0f / (2.0f * x)) / x;
  return sign * sum;
}

float bessel_i1_float(float x) {
  const float ax = std::abs(x);
  if (!(ax <= kI1FloatLimit)) {  // also NaN
    return static_cast<float>(bessel_i(1, static_cast<double>(x)));
  }
  float v;
  if (ax <= 8.0f) {
    const float t = ax / 2.0f - 2.0f;
    v = std::exp(ax) * ax * chebyshev_series(t, kI1eSmall);
  } else {
    v = std::exp(ax) * chebyshev_series(32.0f / ax - 2.0f, kI1eLarge) / std::sqrt(ax);
  }
  return x < 0.0f ? -v : v;
}

namespace {

// erfcx(x) for x > 0 as CPU's float kernel computes it.
float erfcx_positive_float(float x) {
  if (x > 50.0f) {
    // Laplace's continued fraction 1/sqrt(pi) / (x + 1/2 / (x + 1 / (x + 3/2 / (x + 2 / x)))),
    // as a ratio of polynomials in x^2 with x^2 rounded to float.
    constexpr float kOneOverSqrtPi = 0.56418958354775628694807945156f;
    if (x > 5e7f) return kOneOverSqrtPi / x;
    const float x2 = x * x;
    const double numerator = static_cast<double>(x2) * (static_cast<double>(x2) + 4.5) + 2.0;
    const double denominator = static_cast<double>(x) * (static_cast<double>(x2 * (x2 + 5.0f)) + 3.75);
    return static_cast<float>(static_cast<double>(kOneOverSqrtPi) * numerator / denominator);
  }
  // CPU's float erfcx evaluates a double-precision Chebyshev fit in the
  // variable y = 400 / (4 + x), with y rounded to float: that is the exact
  // erfcx at 400 / y - 4, rounded to float.
  const float y = 400.0f / (4.0f + x);
  return static_cast<float>(erfcx(400.0 / static_cast<double>(y) - 4.0));
}

}  // namespace

float erfcx_float(float x) {
  if (std::isnan(x)) return x;
  if (x >= 0.0f) return erfcx_positive_float(x);
  if (x < -26.7f) return kInfF;  // exp(x * x) overflows float
  const float twice_exp = 2.0f * std::exp(x * x);
  return x < -6.1f ? twice_exp : twice_exp - erfcx_positive_float(-x);
}

float log_ndtr_float(float x) {
  const float t = x * 0.707106781186547524401f;  // x / sqrt(2), rounded to float
  if (x < -1.0f) {
    // Phi(x) = erfcx(-t) exp(-t^2) / 2, with t * t a float product: the
    // rounding that dominates CPU's float result far in the tail (and which
    // log_ndtr's gradient, exp(-(log_ndtr(x) + x^2 / 2)), amplifies).
    if (t == -kInfF) return -kInfF;
    return std::log(erfcx_positive_float(-t) / 2.0f) - t * t;
  }
  return std::log1p(-std::erfc(t) / 2.0f);
}

}  // namespace npu::kernels::special
