// The unary pointwise family: out = f(self), elementwise, any strides, with
// PyTorch CPU semantics (result dtypes, integer -> float promotion of the
// transcendental ops, NaN handling, half/bfloat16 computed in float).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Dtype support (bool / integer / floating / complex64; "->f" means integer
// and bool inputs compute in float32, as CANN's entries do; PyTorch's default
// float dtype, when it is another, is the caller's to convert self to):
//   Abs, Neg                      int float complex   (abs of complex is real)
//   Exp, Log, Sqrt, Reciprocal    ->f float complex
//   Expm1, Log1p, Log2, Rsqrt, Sin, Cos, Tan, Tanh, Sigmoid, Erf   ->f float
//   Relu, Floor, Ceil, Round, Trunc                                int float
//   Gelu, GeluTanh, Silu, RoundDecimals                            float
//   Sign                          bool int float
//   BitwiseNot                    bool int
//   LogicalNot, IsNan, IsInf      any -> bool
//   NanToNum                      any (identity on bool and integers)
//   Acos .. AiryAi (special functions)                             ->f float
//   Frac                          float
//   Signbit, IsPosInf, IsNegInf   bool int float -> bool
//   IsFinite                      any -> bool (CANN's aclnnIsFinite)
// The element function a unary kernel applies ("Fn": dispatch's op structs
// describe whole aten ops). Keep the order: values index internal tables.
enum class UnaryFn : int {
  Abs, Neg, Exp, Expm1, Log, Log1p, Log2, Sqrt, Rsqrt, Sin, Cos, Tan, Tanh, Sigmoid, Relu,
  Gelu,      // x * Phi(x), exact (erf) form
  GeluTanh,  // the tanh approximation
  Silu, Erf, Floor, Ceil,
  Round,          // half to even
  RoundDecimals,  // round(x * 10^d) / 10^d, half to even; params.decimals
  Trunc, Sign, Reciprocal, BitwiseNot, LogicalNot, IsNan, IsInf,
  NanToNum,  // params.nan / posinf / neginf
  // Inverse trigonometric/hyperbolic and special functions (->f float):
  // computed in double and rounded once (special_math.h), except polygamma
  // n = 1, I1 and LogNdtr, whose float results follow CPU's float algorithm
  // (special_math_float.h).
  Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Log10, Exp2, Erfc, Erfinv,
  Sinc, Digamma, Lgamma,
  Polygamma,  // params.n
  I0, I0e, I1, I1e, Entr, Erfcx, LogNdtr, Ndtri, BesselJ0, BesselJ1, BesselY0, BesselY1,
  ModifiedBesselI0, ModifiedBesselI1, ModifiedBesselK0, ModifiedBesselK1,
  ScaledModifiedBesselK0, ScaledModifiedBesselK1, SphericalBesselJ0, AiryAi,
  Frac,                          // self - trunc(self), float
  Signbit, IsPosInf, IsNegInf,   // bool int float -> bool
  IsFinite,                      // any -> bool: neither inf nor NaN (integers and bool: true)
  kCount
};

const char* unary_op_name(UnaryFn op);

struct UnaryParams {
  int64_t decimals = 0;  // RoundDecimals
  // NanToNum replacements; an empty posinf/neginf means the dtype's largest /
  // lowest finite value, PyTorch's default.
  double nan = 0.0;
  std::optional<double> posinf, neginf;
  int64_t n = 0;  // Polygamma's order
};

// The dtype `op` produces for an input of `self`, whatever the output's
// dtype (integers promoted to float give float32). Throws KernelError naming
// op and dtype when PyTorch CPU rejects the dtype.
DType unary_result_dtype(UnaryFn op, DType self);

// out = op(self), computed in unary_result_dtype's dtype. out must have
// self's shape; its dtype may be anything the result dtype can be cast to
// (the result is converted on the way out, as PyTorch casts into a wider out=).
void unary(UnaryFn op, const TensorView& out, const TensorView& self, const UnaryParams& params = {});

}  // namespace npu::kernels
