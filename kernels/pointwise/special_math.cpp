#include "kernels/pointwise/special_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace npu::kernels::special {

namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // 2 / sqrt(pi), erf's derivative at 0
constexpr double kEps = std::numeric_limits<double>::epsilon();

// The asymptotic series of the scaled modified Bessel functions for large x:
// sum_k (+-1)^k a_k(nu) / x^k with a_k = prod_{j=1..k} (4 nu^2 - (2j-1)^2) / (k! 8^k).
// alternate = true gives I's series (signs alternate), false K's.
double bessel_asymptotic_sum(int nu, double x, bool alternate) {
  const double mu = 4.0 * nu * nu;
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1.0;
    term *= (mu - odd * odd) / (k * 8.0 * x);
    if (alternate) term = -term;
    sum += term;
    if (std::abs(term) < kEps * std::abs(sum)) break;
  }
  return sum;
}

// Mike Giles' single-precision approximation of erfinv ("Approximating the
// erfinv function", GPU Computing Gems, 2011) in terms of w = -log(1 - y^2),
// used as the starting point of Newton's iteration.
double erfinv_guess(double y, double w) {
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}

// erfc^-1(q) for q in (0, 1]: Newton's iteration on erfc(x) = q, whose
// residual stays accurate however small q is (1 - q would round to 1).
double erfcinv_upper(double q) {
  double x = erfinv_guess(1.0 - q, -std::log(q * (2.0 - q)));
  if (q < 1e-300 && x < 26.0) x = 26.0;  // beyond the guess's range; erfc is convex: Newton climbs from below
  for (int i = 0; i < 100; ++i) {
    const double step = (std::erfc(x) - q) / (kTwoOverSqrtPi * std::exp(-x * x));
    if (!std::isfinite(step)) break;
    x += step;
    if (std::abs(step) <= 4 * kEps * std::abs(x)) break;
  }
  return x;
}

// erfc^-1(q) for q in (0, 2).
double erfcinv(double q) {
  if (q > 1.0) return -erfcinv(2.0 - q);  // exact: 2 - q for q in [1, 2]
  if (q >= 0.5) return erfinv(1.0 - q);   // exact: 1 - q for q in [0.5, 1]
  return erfcinv_upper(q);
}

// Regularized P(a, x) by its power series (x < a + 1).
double igamma_series(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < 100000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::abs(term) < kEps * std::abs(sum)) break;
  }
  return sum * std::exp(a * std::log(x) - x - log_gamma(a));
}

// Regularized Q(a, x) by Legendre's continued fraction (x >= a + 1),
// evaluated with the modified Lentz method.
double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < kEps) break;
  }
  return std::exp(a * std::log(x) - x - log_gamma(a)) * h;
}

}  // namespace

double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

double digamma(double x) {
  if (std::isnan(x) || x == kInf) return x;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (x == -kInf) return kNan;
  double result = 0.0;
  if (x < 0) {
    if (x == std::floor(x)) return kNan;
    // Reflection: psi(x) = psi(1 - x) - pi cot(pi x); cot has period 1, and
    // x - floor(x) is exact, so the cotangent keeps its accuracy for large |x|.
    result = -kPi / std::tan(kPi * (x - std::floor(x)));
    x = 1.0 - x;
  }
  // psi(x) = psi(x + 1) - 1 / x up to x >= 10, then the asymptotic series
  // log x - 1/(2x) - sum_k B_2k / (2k x^2k).
  for (; x < 10.0; x += 1.0) result -= 1.0 / x;
  const double z = 1.0 / (x * x);
  const double tail =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - tail;
}

double hurwitz_zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNan;
  if (s == 1.0) return kInf;
  if (s < 1.0) return kNan;
  if (q <= 0 && q == std::floor(q)) return kInf;
  if (q < 0 && s != std::floor(s)) return kNan;  // (q + k)^-s is not real
  if (q == kInf) return 0.0;
  // Sum the first terms directly until q + k >= max(16, s), then the
  // Euler-Maclaurin formula for the rest:
  // a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! s(s+1)..(s+2j-2) a^(-s-2j+1).
  double sum = 0.0;
  double a = q;
  const double start = std::max(16.0, s);
  for (; a < start; a += 1.0) sum += std::pow(a, -s);
  static constexpr double kB2jOverFactorial[] = {
      1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160, -691.0 / 1307674368000.0,
      1.0 / 74724249600.0, -3617.0 / 10670622842880000.0};
  const double a_s = std::pow(a, -s);
  sum += a * a_s / (s - 1.0) + 0.5 * a_s;
  double factor = s * a_s / a;  // s a^(-s-1)
  for (std::size_t j = 0; j < sizeof(kB2jOverFactorial) / sizeof(double); ++j) {
    const double term = kB2jOverFactorial[j] * factor;
    sum += term;
    if (std::abs(term) < kEps * std::abs(sum)) break;
    const double k = 2.0 * static_cast<double>(j) + 1.0;  // next factors s + 2j - 1 + {0, 1}
    factor *= (s + k) * (s + k + 1.0) / (a * a);
  }
  return sum;
}

double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (n < 0) return kNan;
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
  const double nd = static_cast<double>(n);
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * std::exp(log_gamma(nd + 1.0)) * hurwitz_zeta(nd + 1.0, x);
}

double erfinv(double y) {
  if (std::isnan(y)) return y;
  const double ay = std::abs(y);
  if (ay > 1.0) return kNan;
  if (ay == 1.0) return std::copysign(kInf, y);
  if (ay > 0.5) return std::copysign(erfcinv_upper(1.0 - ay), y);  // 1 - |y| is exact here
  double x = erfinv_guess(y, -std::log1p(-y * y));
  for (int i = 0; i < 3; ++i) x -= (std::erf(x) - y) / (kTwoOverSqrtPi * std::exp(-x * x));
  return x;
}

double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return kInf;  // 2 exp(x^2) overflows
    return 2.0 * std::exp(x * x) - erfcx(-x);
  }
  if (x < 25.0) return std::exp(x * x) * std::erfc(x);
  if (x == kInf) return 0.0;
  // erfcx(x) ~ 1 / (x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k
  const double z = 1.0 / (2.0 * x * x);
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k < 12; ++k) {
    term *= -(2.0 * k - 1.0) * z;
    sum += term;
  }
  return sum / (x * std::sqrt(kPi));
}

double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  const double t = x / kSqrt2;
  // Phi(x) = erfc(-t) / 2: for x < -1, erfc(-t) = erfcx(-t) exp(-t^2) keeps
  // the logarithm finite far beyond erfc's underflow.
  if (x < -1.0) return std::log(erfcx(-t) / 2.0) - t * t;
  return std::log1p(-std::erfc(t) / 2.0);
}

double ndtri(double p) {
  if (std::isnan(p)) return p;
  if (p < 0.0 || p > 1.0) return kNan;
  if (p == 0.0) return -kInf;
  if (p == 1.0) return kInf;
  return -kSqrt2 * erfcinv(2.0 * p);
}

double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  if (x == 0) return 0.0;
  return -kInf;
}

double sinc(double x) {
  if (x == 0) return 1.0;
  // sin(pi x) with the argument reduced exactly (fmod by 2 is exact), so
  // large x keep sinc's zeros at the integers.
  return std::sin(kPi * std::fmod(x, 2.0)) / (kPi * x);
}

double bessel_i(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::abs(x);
  const double v = ax > 710.0 ? kInf : std::cyl_bessel_i(static_cast<double>(nu), ax);
  return (nu % 2 == 1 && x < 0) ? -v : v;  // I0 is even, I1 odd
}

double bessel_i_scaled(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::abs(x);
  double v;
  if (ax == kInf) v = 0.0;
  else if (ax <= 500.0) v = std::exp(-ax) * std::cyl_bessel_i(static_cast<double>(nu), ax);
  else v = bessel_asymptotic_sum(nu, ax, true) / std::sqrt(2.0 * kPi * ax);
  return (nu % 2 == 1 && x < 0) ? -v : v;
}

double bessel_k(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNan;
  if (x == 0) return kInf;
  if (x == kInf || x > 750.0) return 0.0;
  return std::cyl_bessel_k(static_cast<double>(nu), x);
}

double bessel_k_scaled(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNan;
  if (x == 0) return kInf;
  if (x == kInf) return 0.0;
  if (x <= 500.0) return std::exp(x) * std::cyl_bessel_k(static_cast<double>(nu), x);
  return bessel_asymptotic_sum(nu, x, false) * std::sqrt(kPi / (2.0 * x));
}

double bessel_j(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::abs(x);
  if (ax == kInf) return 0.0;
  const double v = std::cyl_bessel_j(static_cast<double>(nu), ax);
  return (nu % 2 == 1 && x < 0) ? -v : v;  // J0 is even, J1 odd
}

double bessel_y(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNan;
  if (x == 0) return -kInf;
  if (x == kInf) return 0.0;
  return std::cyl_neumann(static_cast<double>(nu), x);
}

double spherical_bessel_j0(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0.0;
  if (std::abs(x) < 1e-4) return 1.0 - x * x / 6.0;  // sin(x)/x to double precision there
  return std::sin(x) / x;
}

double airy_ai(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0.0;  // Ai decays to 0 at both ends
  if (x > 105.0) return 0.0;      // below the smallest double
  const double ax = std::abs(x);
  const double zeta = 2.0 / 3.0 * ax * std::sqrt(ax);
  if (x > 0) {
    // Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi
    return std::sqrt(x / 3.0) * std::cyl_bessel_k(1.0 / 3.0, zeta) / kPi;
  }
  if (zeta < 1e-8) {
    // Ai(0) = 1 / (3^(2/3) Gamma(2/3)), Ai'(0) = -1 / (3^(1/3) Gamma(1/3))
    const double ai0 = 1.0 / (std::cbrt(9.0) * std::tgamma(2.0 / 3.0));
    const double dai0 = -1.0 / (std::cbrt(3.0) * std::tgamma(1.0 / 3.0));
    return ai0 + dai0 * x;
  }
  // Ai(-x) = sqrt(x) / 3 (J_{1/3}(zeta) + J_{-1/3}(zeta)), with
  // J_{-1/3} = cos(pi/3) J_{1/3} - sin(pi/3) Y_{1/3}.
  const double j = std::cyl_bessel_j(1.0 / 3.0, zeta);
  const double y = std::cyl_neumann(1.0 / 3.0, zeta);
  return std::sqrt(ax) / 3.0 * (1.5 * j - std::sqrt(3.0) / 2.0 * y);
}

double igamma(double a, double x) {
  if (std::isnan(a) || std::isnan(x)) return kNan;
  if (a < 0 || x < 0) return kNan;
  if (a == 0) return x > 0 ? 1.0 : kNan;
  if (x == 0) return 0.0;
  if (std::isinf(a)) return std::isinf(x) ? kNan : 0.0;
  if (std::isinf(x)) return 1.0;
  return x < a + 1.0 ? igamma_series(a, x) : 1.0 - igammac_fraction(a, x);
}

double igammac(double a, double x) {
  if (std::isnan(a) || std::isnan(x)) return kNan;
  if (a < 0 || x < 0) return kNan;
  if (a == 0) return x > 0 ? 0.0 : kNan;
  if (x == 0) return 1.0;
  if (std::isinf(a)) return std::isinf(x) ? kNan : 1.0;
  if (std::isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - igamma_series(a, x) : igammac_fraction(a, x);
}

double xlogy(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0) return 0.0;
  return x * std::log(y);
}

double xlog1py(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0) return 0.0;
  return x * std::log1p(y);
}

}  // namespace npu::kernels::special
