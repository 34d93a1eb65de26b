// Special functions of the pointwise families (digamma, polygamma, Bessel,
// error-function inverses, incomplete gamma, ...), in double precision:
// every floating dtype evaluates them in double and rounds once, which keeps
// float32 results within an ulp or two where the functions are
// ill-conditioned (except where CPU's own float algorithm is the reference:
// special_math_float.h). Written from the mathematics (recurrences, reflection
// formulas, series and asymptotic expansions); the C++ standard library's
// special functions are used where it has them. Special values follow the
// mathematical definitions as PyTorch documents them.
#pragma once

#include <cmath>
#include <limits>

namespace npu::kernels::special {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kPi = 3.14159265358979323846;

// log |Gamma(x)|; +inf at 0 and the negative integers. Reentrant (the
// kernels run on several threads; std::lgamma writes the global signgam).
double log_gamma(double x);

// psi(x) = d/dx log Gamma(x). Poles at 0, -1, -2, ...: NaN at the negative
// integers, -inf at +0 (+inf at -0, the limit from the left side of 0).
double digamma(double x);

// d^n/dx^n psi(x), n >= 0; n >= 1 via the Hurwitz zeta function.
double polygamma(int64_t n, double x);

// Hurwitz zeta(s, q) = sum_{k>=0} (q + k)^-s for s > 1.
double hurwitz_zeta(double s, double q);

// Inverse error function on [-1, 1] (+-inf at +-1, NaN outside).
double erfinv(double y);

// exp(x^2) * erfc(x) without overflow or underflow of the factors.
double erfcx(double x);

// log of the standard normal CDF, log(Phi(x)).
double log_ndtr(double x);

// Inverse of the standard normal CDF on [0, 1].
double ndtri(double p);

// -x log x (0 at 0, -inf for x < 0).
double entr(double x);

// sin(pi x) / (pi x), 1 at 0.
double sinc(double x);

// Modified Bessel functions of the first kind I0, I1, and exp(-|x|) I0/I1.
double bessel_i(int nu, double x);
double bessel_i_scaled(int nu, double x);
// Of the second kind K0, K1, and exp(x) K0/K1.
double bessel_k(int nu, double x);
double bessel_k_scaled(int nu, double x);
// Bessel functions of the first (J0, J1) and second (Y0, Y1) kind.
double bessel_j(int nu, double x);
double bessel_y(int nu, double x);
// sin(x) / x, 1 at 0.
double spherical_bessel_j0(double x);
// Airy function Ai.
double airy_ai(double x);

// Regularized lower / upper incomplete gamma functions P(a, x), Q(a, x).
double igamma(double a, double x);
double igammac(double a, double x);

// x * log(y) and x * log1p(y), 0 when x == 0 and y is not NaN.
double xlogy(double x, double y);
double xlog1py(double x, double y);

}  // namespace npu::kernels::special
