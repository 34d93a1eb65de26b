#include "kernels/pointwise/unary_ops.h"

#include <cmath>
#include <limits>

#include "kernels/core/scratch.h"
#include "kernels/pointwise/pointwise_kinds.h"
#include "kernels/pointwise/pointwise_loop.h"
#include "kernels/pointwise/pointwise_math.h"
#include "kernels/pointwise/special_math.h"
#include "kernels/pointwise/special_math_float.h"
#include "kernels/pointwise/type_promotion.h"

namespace npu::kernels {

namespace {

using R = ResultRule;

// Indexed by UnaryFn.
constexpr OpInfo kUnaryFns[] = {
    {"abs", kIntFloat | kComplex, R::RealOfComplex},
    {"neg", kIntFloat | kComplex, R::Same},
    {"exp", kAnyKind, R::Float},
    {"expm1", kRealKinds, R::Float},
    {"log", kAnyKind, R::Float},
    {"log1p", kRealKinds, R::Float},
    {"log2", kRealKinds, R::Float},
    {"sqrt", kAnyKind, R::Float},
    {"rsqrt", kRealKinds, R::Float},
    {"sin", kRealKinds, R::Float},
    {"cos", kRealKinds, R::Float},
    {"tan", kRealKinds, R::Float},
    {"tanh", kRealKinds, R::Float},
    {"sigmoid", kRealKinds, R::Float},
    {"relu", kIntFloat, R::Same},
    {"gelu", kFloat, R::Same},
    {"gelu(tanh)", kFloat, R::Same},
    {"silu", kFloat, R::Same},
    {"erf", kRealKinds, R::Float},
    {"floor", kIntFloat, R::Same},
    {"ceil", kIntFloat, R::Same},
    {"round", kIntFloat, R::Same},
    {"round(decimals)", kFloat, R::Same},
    {"trunc", kIntFloat, R::Same},
    {"sign", kRealKinds, R::Same},
    {"reciprocal", kAnyKind, R::Float},
    {"bitwise_not", kBool | kInt, R::Same},
    {"logical_not", kAnyKind, R::Logical},
    {"isnan", kAnyKind, R::Bool},
    {"isinf", kAnyKind, R::Bool},
    {"nan_to_num", kAnyKind, R::Same},
    {"acos", kRealKinds, R::Float},
    {"acosh", kRealKinds, R::Float},
    {"asin", kRealKinds, R::Float},
    {"asinh", kRealKinds, R::Float},
    {"atan", kRealKinds, R::Float},
    {"atanh", kRealKinds, R::Float},
    {"cosh", kRealKinds, R::Float},
    {"sinh", kRealKinds, R::Float},
    {"log10", kRealKinds, R::Float},
    {"exp2", kRealKinds, R::Float},
    {"erfc", kRealKinds, R::Float},
    {"erfinv", kRealKinds, R::Float},
    {"sinc", kRealKinds, R::Float},
    {"digamma", kRealKinds, R::Float},
    {"lgamma", kRealKinds, R::Float},
    {"polygamma", kRealKinds, R::Float},
    {"i0", kRealKinds, R::Float},
    {"special_i0e", kRealKinds, R::Float},
    {"special_i1", kRealKinds, R::Float},
    {"special_i1e", kRealKinds, R::Float},
    {"special_entr", kRealKinds, R::Float},
    {"special_erfcx", kRealKinds, R::Float},
    {"special_log_ndtr", kRealKinds, R::Float},
    {"special_ndtri", kRealKinds, R::Float},
    {"special_bessel_j0", kRealKinds, R::Float},
    {"special_bessel_j1", kRealKinds, R::Float},
    {"special_bessel_y0", kRealKinds, R::Float},
    {"special_bessel_y1", kRealKinds, R::Float},
    {"special_modified_bessel_i0", kRealKinds, R::Float},
    {"special_modified_bessel_i1", kRealKinds, R::Float},
    {"special_modified_bessel_k0", kRealKinds, R::Float},
    {"special_modified_bessel_k1", kRealKinds, R::Float},
    {"special_scaled_modified_bessel_k0", kRealKinds, R::Float},
    {"special_scaled_modified_bessel_k1", kRealKinds, R::Float},
    {"special_spherical_bessel_j0", kRealKinds, R::Float},
    {"special_airy_ai", kRealKinds, R::Float},
    {"frac", kFloat, R::Same},
    {"signbit", kRealKinds, R::Bool},
    {"isposinf", kRealKinds, R::Bool},
    {"isneginf", kRealKinds, R::Bool},
    {"isfinite", kAnyKind, R::Bool},
};
constexpr std::size_t kNumOps = static_cast<std::size_t>(UnaryFn::kCount);
static_assert(sizeof(kUnaryFns) / sizeof(kUnaryFns[0]) == kNumOps, "one table row per UnaryFn");

const OpInfo& info(UnaryFn op) { return kUnaryFns[static_cast<std::size_t>(op)]; }

// f evaluated in opmath (float for half/bfloat16), rounded once to T.
template <class T, class F>
auto in_opmath(F f) {
  return [f](T x) { return static_cast<T>(f(static_cast<opmath_t<T>>(x))); };
}

template <class T>
auto identity() {
  return [](T x) { return x; };
}

// f evaluated in double, rounded once to T: the special functions are
// ill-conditioned in places, where float arithmetic would lose digits.
template <class T, class F>
auto in_double(F f) {
  return [f](T x) { return static_cast<T>(static_cast<float>(f(static_cast<double>(x)))); };
}

// The double -> double function of a special-function UnaryFn.
template <UnaryFn op>
auto special_fn(const UnaryParams& p) {
  namespace sp = special;
  using F = UnaryFn;
  if constexpr (op == F::Acos) return [](double v) { return std::acos(v); };
  else if constexpr (op == F::Acosh) return [](double v) { return std::acosh(v); };
  else if constexpr (op == F::Asin) return [](double v) { return std::asin(v); };
  else if constexpr (op == F::Asinh) return [](double v) { return std::asinh(v); };
  else if constexpr (op == F::Atan) return [](double v) { return std::atan(v); };
  else if constexpr (op == F::Atanh) return [](double v) { return std::atanh(v); };
  else if constexpr (op == F::Cosh) return [](double v) { return std::cosh(v); };
  else if constexpr (op == F::Sinh) return [](double v) { return std::sinh(v); };
  else if constexpr (op == F::Log10) return [](double v) { return std::log10(v); };
  else if constexpr (op == F::Exp2) return [](double v) { return std::exp2(v); };
  else if constexpr (op == F::Erfc) return [](double v) { return std::erfc(v); };
  else if constexpr (op == F::Erfinv) return [](double v) { return sp::erfinv(v); };
  else if constexpr (op == F::Sinc) return [](double v) { return sp::sinc(v); };
  else if constexpr (op == F::Digamma) return [](double v) { return sp::digamma(v); };
  else if constexpr (op == F::Lgamma) return [](double v) { return sp::log_gamma(v); };
  else if constexpr (op == F::Polygamma) return [n = p.n](double v) { return sp::polygamma(n, v); };
  else if constexpr (op == F::I0) return [](double v) { return sp::bessel_i(0, v); };
  else if constexpr (op == F::I0e) return [](double v) { return sp::bessel_i_scaled(0, v); };
  else if constexpr (op == F::I1) return [](double v) { return sp::bessel_i(1, v); };
  else if constexpr (op == F::I1e) return [](double v) { return sp::bessel_i_scaled(1, v); };
  else if constexpr (op == F::Entr) return [](double v) { return sp::entr(v); };
  else if constexpr (op == F::Erfcx) return [](double v) { return sp::erfcx(v); };
  else if constexpr (op == F::LogNdtr) return [](double v) { return sp::log_ndtr(v); };
  else if constexpr (op == F::Ndtri) return [](double v) { return sp::ndtri(v); };
  else if constexpr (op == F::BesselJ0) return [](double v) { return sp::bessel_j(0, v); };
  else if constexpr (op == F::BesselJ1) return [](double v) { return sp::bessel_j(1, v); };
  else if constexpr (op == F::BesselY0) return [](double v) { return sp::bessel_y(0, v); };
  else if constexpr (op == F::BesselY1) return [](double v) { return sp::bessel_y(1, v); };
  else if constexpr (op == F::ModifiedBesselI0) return [](double v) { return sp::bessel_i(0, v); };
  else if constexpr (op == F::ModifiedBesselI1) return [](double v) { return sp::bessel_i(1, v); };
  else if constexpr (op == F::ModifiedBesselK0) return [](double v) { return sp::bessel_k(0, v); };
  else if constexpr (op == F::ModifiedBesselK1) return [](double v) { return sp::bessel_k(1, v); };
  else if constexpr (op == F::ScaledModifiedBesselK0) return [](double v) { return sp::bessel_k_scaled(0, v); };
  else if constexpr (op == F::ScaledModifiedBesselK1) return [](double v) { return sp::bessel_k_scaled(1, v); };
  else if constexpr (op == F::SphericalBesselJ0) return [](double v) { return sp::spherical_bessel_j0(v); };
  else {
    static_assert(op == F::AiryAi, "every special UnaryFn has a function");
    return [](double v) { return sp::airy_ai(v); };
  }
}

constexpr bool is_special(UnaryFn op) { return op >= UnaryFn::Acos && op <= UnaryFn::AiryAi; }

// Special functions whose float (and float16/bfloat16) results follow CPU's
// float algorithm rather than the double evaluation (special_math_float.h).
constexpr bool has_float_form(UnaryFn op) {
  return op == UnaryFn::Polygamma || op == UnaryFn::I1 || op == UnaryFn::LogNdtr || op == UnaryFn::Erfcx;
}

// The float special function of such an op, rounded to T; polygamma only
// for n = 1 (trigamma: CPU computes n >= 2 through zeta in double).
template <class T, UnaryFn op>
auto float_form(const UnaryParams& p) {
  namespace sp = special;
  if constexpr (op == UnaryFn::Polygamma) {
    const auto in_dbl = in_double<T>(special_fn<op>(p));
    return [trigamma = p.n == 1, in_dbl](T x) {
      return trigamma ? static_cast<T>(sp::trigamma_float(static_cast<float>(x))) : in_dbl(x);
    };
  } else if constexpr (op == UnaryFn::I1) {
    return [](T x) { return static_cast<T>(sp::bessel_i1_float(static_cast<float>(x))); };
  } else if constexpr (op == UnaryFn::Erfcx) {
    return [](T x) { return static_cast<T>(sp::erfcx_float(static_cast<float>(x))); };
  } else {
    static_assert(op == UnaryFn::LogNdtr, "every has_float_form op has a float function");
    return [](T x) { return static_cast<T>(sp::log_ndtr_float(static_cast<float>(x))); };
  }
}

// NaN/inf replacement of one real component.
template <class V>
struct NanToNumPart {
  V nan, posinf, neginf;
  explicit NanToNumPart(const UnaryParams& p)
      : nan(static_cast<V>(p.nan)),
        posinf(p.posinf ? static_cast<V>(*p.posinf) : std::numeric_limits<V>::max()),
        neginf(p.neginf ? static_cast<V>(*p.neginf) : std::numeric_limits<V>::lowest()) {}
  V operator()(V v) const {
    if (pwmath::is_nan(v)) return nan;
    if (std::isinf(static_cast<double>(v))) return static_cast<double>(v) > 0 ? posinf : neginf;
    return v;
  }
};

// The element function of `op` on T, for T in compute_kinds(op).
template <UnaryFn op, class T>
auto unary_fn(const UnaryParams& p) {
  using M = opmath_t<T>;
  constexpr unsigned kind = kind_of<T>();
  if constexpr (op == UnaryFn::Abs) {
    if constexpr (kind == kComplex) return [](T x) { return std::abs(x); };
    // fabs, not "x < 0 ? -x : x": abs(-0.0) is +0.0 (clears the sign bit).
    else if constexpr (kind == kFloat) return in_opmath<T>([](M v) { return std::abs(v); });
    else return [](T x) { return x < T(0) ? pwmath::wrap_neg(x) : x; };
  } else if constexpr (op == UnaryFn::Neg) {
    return [](T x) { return pwmath::wrap_neg(x); };
  } else if constexpr (op == UnaryFn::Exp) {
    return in_opmath<T>([](auto v) { return std::exp(v); });
  } else if constexpr (op == UnaryFn::Expm1) {
    return in_opmath<T>([](M v) { return std::expm1(v); });
  } else if constexpr (op == UnaryFn::Log) {
    return in_opmath<T>([](auto v) { return std::log(v); });
  } else if constexpr (op == UnaryFn::Log1p) {
    return in_opmath<T>([](M v) { return std::log1p(v); });
  } else if constexpr (op == UnaryFn::Log2) {
    return in_opmath<T>([](M v) { return std::log2(v); });
  } else if constexpr (op == UnaryFn::Sqrt) {
    return in_opmath<T>([](auto v) { return std::sqrt(v); });
  } else if constexpr (op == UnaryFn::Rsqrt) {
    return in_opmath<T>([](M v) { return M(1) / std::sqrt(v); });
  } else if constexpr (op == UnaryFn::Sin) {
    return in_opmath<T>([](M v) { return std::sin(v); });
  } else if constexpr (op == UnaryFn::Cos) {
    return in_opmath<T>([](M v) { return std::cos(v); });
  } else if constexpr (op == UnaryFn::Tan) {
    return in_opmath<T>([](M v) { return std::tan(v); });
  } else if constexpr (op == UnaryFn::Tanh) {
    return in_opmath<T>([](M v) { return std::tanh(v); });
  } else if constexpr (op == UnaryFn::Sigmoid) {
    return in_opmath<T>([](M v) { return M(1) / (M(1) + std::exp(-v)); });
  } else if constexpr (op == UnaryFn::Relu) {
    // Exactly clamp_min(x, 0), as on PyTorch CPU: NaN and -0.0 pass through.
    return [](T x) { return x < T(0) ? T(0) : x; };
  } else if constexpr (op == UnaryFn::Gelu) {
    // At -inf the product is -inf * 0; the function's limit there is -0.
    return in_opmath<T>([](M v) {
      return v == -std::numeric_limits<M>::infinity() ? M(-0.0) : v * M(0.5) * (M(1) + std::erf(v * M(M_SQRT1_2)));
    });
  } else if constexpr (op == UnaryFn::GeluTanh) {
    return in_opmath<T>([](M v) {
      const M beta = M(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
      const M inner = beta * (v + M(0.044715) * v * v * v);
      return v == -std::numeric_limits<M>::infinity() ? M(-0.0) : M(0.5) * v * (M(1) + std::tanh(inner));
    });
  } else if constexpr (op == UnaryFn::Silu) {
    return in_opmath<T>([](M v) {
      return v == -std::numeric_limits<M>::infinity() ? M(-0.0) : v / (M(1) + std::exp(-v));  // -inf / inf
    });
  } else if constexpr (op == UnaryFn::Erf) {
    return in_opmath<T>([](M v) { return std::erf(v); });
  } else if constexpr (kind == kInt && (op == UnaryFn::Floor || op == UnaryFn::Ceil || op == UnaryFn::Round ||
                                        op == UnaryFn::Trunc)) {
    return identity<T>();
  } else if constexpr (op == UnaryFn::Floor) {
    return in_opmath<T>([](M v) { return std::floor(v); });
  } else if constexpr (op == UnaryFn::Ceil) {
    return in_opmath<T>([](M v) { return std::ceil(v); });
  } else if constexpr (op == UnaryFn::Round) {
    // nearbyint under the default rounding mode: ties to even.
    return in_opmath<T>([](M v) { return std::nearbyint(v); });
  } else if constexpr (op == UnaryFn::RoundDecimals) {
    const bool negative = p.decimals < 0;
    const M scale = static_cast<M>(std::pow(10.0, static_cast<double>(negative ? -p.decimals : p.decimals)));
    return in_opmath<T>([negative, scale](M v) {
      return negative ? std::nearbyint(v / scale) * scale : std::nearbyint(v * scale) / scale;
    });
  } else if constexpr (op == UnaryFn::Trunc) {
    return in_opmath<T>([](M v) { return std::trunc(v); });
  } else if constexpr (op == UnaryFn::Sign) {
    if constexpr (kind == kBool) return identity<T>();
    // NaN compares false both ways: sign(NaN) = 0, as on PyTorch CPU.
    else return in_opmath<T>([](M v) { return static_cast<M>((M(0) < v) - (v < M(0))); });
  } else if constexpr (op == UnaryFn::Reciprocal) {
    return in_opmath<T>([](M v) { return M(1) / v; });
  } else if constexpr (op == UnaryFn::BitwiseNot) {
    if constexpr (kind == kBool) return [](T x) { return !x; };
    else return [](T x) { return static_cast<T>(~x); };
  } else if constexpr (op == UnaryFn::LogicalNot) {
    return [](T x) { return !x; };
  } else if constexpr (op == UnaryFn::IsNan) {
    if constexpr (kind == kComplex) return [](T x) { return std::isnan(x.real()) || std::isnan(x.imag()); };
    else return [](T x) { return pwmath::is_nan(x); };
  } else if constexpr (op == UnaryFn::IsInf) {
    if constexpr (kind == kComplex) return [](T x) { return std::isinf(x.real()) || std::isinf(x.imag()); };
    else if constexpr (kind == kFloat) return [](T x) { return std::isinf(static_cast<double>(x)); };
    else return [](T) { return false; };
  } else if constexpr (is_special(op)) {
    if constexpr (std::is_same_v<T, double>) {
      const auto f = special_fn<op>(p);
      return [f](T x) { return f(x); };
    } else if constexpr (has_float_form(op)) {
      return float_form<T, op>(p);
    } else {
      return in_double<T>(special_fn<op>(p));
    }
  } else if constexpr (op == UnaryFn::Frac) {
    return in_opmath<T>([](M v) { return v - std::trunc(v); });
  } else if constexpr (op == UnaryFn::Signbit) {
    if constexpr (kind == kFloat) return [](T x) { return std::signbit(static_cast<double>(x)); };
    else if constexpr (std::is_signed_v<T>) return [](T x) { return x < T(0); };
    else return [](T) { return false; };
  } else if constexpr (op == UnaryFn::IsPosInf || op == UnaryFn::IsNegInf) {
    constexpr double target = op == UnaryFn::IsPosInf ? std::numeric_limits<double>::infinity()
                                                      : -std::numeric_limits<double>::infinity();
    if constexpr (kind == kFloat) return [](T x) { return static_cast<double>(x) == target; };
    else return [](T) { return false; };
  } else if constexpr (op == UnaryFn::IsFinite) {
    if constexpr (kind == kComplex) return [](T x) { return std::isfinite(x.real()) && std::isfinite(x.imag()); };
    else if constexpr (kind == kFloat) return [](T x) { return std::isfinite(static_cast<double>(x)); };
    else return [](T) { return true; };
  } else {
    static_assert(op == UnaryFn::NanToNum, "every UnaryFn has an element function");
    if constexpr (kind == kComplex) {
      const NanToNumPart<typename T::value_type> part(p);
      return [part](T x) { return T(part(x.real()), part(x.imag())); };
    } else if constexpr (kind == kFloat) {
      const NanToNumPart<T> part(p);
      return part;
    } else {
      return identity<T>();
    }
  }
}

template <UnaryFn op, class T>
void run(const TensorView& out, const TensorView& in, const UnaryParams& p) {
  if constexpr ((compute_kinds(kUnaryFns[static_cast<std::size_t>(op)]) & kind_of<T>()) != 0) {
    const auto fn = unary_fn<op, T>(p);
    using Out = std::decay_t<decltype(fn(std::declval<T>()))>;
    if (dtype_of<Out>() != out.dtype) throw KernelError(std::string(info(op).name) + ": internal dtype mismatch");
    map_unary<Out, T>(out, in, fn);
  } else {
    throw_unsupported(info(op).name, in.dtype);
  }
}

}  // namespace

const char* unary_op_name(UnaryFn op) { return info(op).name; }

namespace {

// The compute dtype never depends on out's: a float32 hint makes integers
// promote to float32 (out= of another dtype receives the converted result).
DType unary_compute_dtype(UnaryFn op, DType self) { return compute_dtype(info(op), self, DType::Float32); }

}  // namespace

DType unary_result_dtype(UnaryFn op, DType self) { return result_dtype(info(op), unary_compute_dtype(op, self)); }

void unary(UnaryFn op, const TensorView& out, const TensorView& self, const UnaryParams& params) {
  const DType compute = unary_compute_dtype(op, self.dtype);
  if (out.sizes != self.sizes) {
    throw KernelError(std::string(info(op).name) + ": out has shape " + shape_str(out.sizes) + ", expected " +
                      shape_str(self.sizes));
  }
  std::optional<ScratchTensor> holder;
  const TensorView in = input_as(self, compute, holder);
  with_output_dtype(out, result_dtype(info(op), compute), [&](const TensorView& o) {
    visit_pointwise_dtype(info(op).name, compute, [&](auto tag) {
      using T = typename decltype(tag)::type;
      visit_op<UnaryFn, kNumOps>(op, [&](auto op_c) { run<decltype(op_c)::value, T>(o, in, params); });
    });
  });
}

}  // namespace npu::kernels
