// Special functions evaluated in float arithmetic, step by step as PyTorch's
// CPU kernels evaluate them for float (and, through float, float16/bfloat16)
// inputs. special_math.h evaluates everything in double and rounds once,
// which is closer to the true value; but where CPU's float algorithm loses
// digits (trigamma's reflection near the poles, the cancellation inside
// log_ndtr's derivative, i1's float Chebyshev series) "closer to the truth"
// means "outside the tolerance of CPU's float result", and npu must match
// CPU. These functions reproduce CPU's float results: the same formulas,
// the same operation order, float intermediates, libm's float functions.
// CPU's kernels run in their AVX2/AVX-512 builds, compiled with FMA, where
// the compiler fuses a * b - c: the fused steps are written as std::fma
// (CPU's ATEN_CPU_CAPABILITY=default build differs from them by an ulp).
// Mathematical special values (inf inputs, overflow) are kept exact where
// CPU's float arithmetic would produce NaN or a spurious overflow.
#pragma once

namespace npu::kernels::special {

// psi'(x) (polygamma n = 1): reflection below 0.5 with sinf(pi x), six
// recurrence steps, then the asymptotic series, in float.
float trigamma_float(float x);

// I1(x): the float Chebyshev series of exp(-x) I1(x) on [0, 8] and of
// exp(-x) sqrt(x) I1(x) above, in float.
float bessel_i1_float(float x);

// erfcx(x) = exp(x^2) erfc(x): for x < 0, 2 exp(x * x) - erfcx(-x) with
// x * x and exp in float (their rounding is CPU's float result's error,
// x^2 * 2^-24 relative: 2e-6 at x = -6); for x >= 0 CPU's fit below.
float erfcx_float(float x);

// log(Phi(x)): through erfcx below x = -1, log1p(-erfc(x / sqrt 2) / 2)
// above, in float (erfcx as CPU's float kernel evaluates it).
float log_ndtr_float(float x);

}  // namespace npu::kernels::special
