#include "kernels/pointwise/binary_ops.h"

#include <cmath>
#include <cstdint>

#include "kernels/pointwise/fused_axpy.h"
#include "kernels/pointwise/pointwise_kinds.h"
#include "kernels/pointwise/pointwise_loop.h"
#include "kernels/pointwise/pointwise_math.h"
#include "kernels/pointwise/reduced_cast.h"
#include "kernels/pointwise/special_math.h"
#include "kernels/pointwise/type_promotion.h"

namespace npu::kernels {

namespace {

using R = ResultRule;

// Indexed by BinaryFn.
constexpr OpInfo kBinaryFns[] = {
    {"add", kAnyKind, R::Same},
    {"sub", kIntFloat | kComplex, R::Same},
    {"mul", kAnyKind, R::Same},
    {"div", kAnyKind, R::Float},
    {"div(trunc)", kIntFloat, R::Same},
    {"div(floor)", kIntFloat, R::Same},
    {"remainder", kIntFloat, R::Same},
    {"fmod", kIntFloat, R::Same},
    {"pow", kIntFloat, R::Same},
    {"atan2", kRealKinds, R::Float},
    {"maximum", kRealKinds, R::Same},
    {"minimum", kRealKinds, R::Same},
    {"hypot", kFloat, R::Same},
    {"logaddexp", kFloat, R::Same},
    {"logaddexp2", kFloat, R::Same},
    {"bitwise_and", kBool | kInt, R::Same},
    {"bitwise_or", kBool | kInt, R::Same},
    {"bitwise_xor", kBool | kInt, R::Same},
    {"bitwise_left_shift", kInt, R::Same},
    {"bitwise_right_shift", kInt, R::Same},
    {"logical_and", kAnyKind, R::Logical},
    {"logical_or", kAnyKind, R::Logical},
    {"logical_xor", kAnyKind, R::Logical},
    {"eq", kAnyKind, R::Bool},
    {"ne", kAnyKind, R::Bool},
    {"lt", kRealKinds, R::Bool},
    {"le", kRealKinds, R::Bool},
    {"gt", kRealKinds, R::Bool},
    {"ge", kRealKinds, R::Bool},
    {"copysign", kRealKinds, R::Float},
    {"fmax", kRealKinds, R::Same},
    {"fmin", kRealKinds, R::Same},
    {"heaviside", kRealKinds, R::Same},
    {"nextafter", kFloat, R::Same},
    {"xlogy", kRealKinds, R::Float},
    {"special_xlog1py", kRealKinds, R::Float},
    {"igamma", kRealKinds, R::Float},
    {"igammac", kRealKinds, R::Float},
};
constexpr std::size_t kNumOps = static_cast<std::size_t>(BinaryFn::kCount);
static_assert(sizeof(kBinaryFns) / sizeof(kBinaryFns[0]) == kNumOps, "one table row per BinaryFn");

const OpInfo& info(BinaryFn op) { return kBinaryFns[static_cast<std::size_t>(op)]; }

// PyTorch multiplies and divides half/bfloat16 tensors by a host scalar kept
// in float, not rounded to the tensor's dtype first.
constexpr bool keeps_scalar_in_opmath(BinaryFn op) { return op == BinaryFn::Mul || op == BinaryFn::Div; }

// The factor Add and Sub multiply their second operand by, in opmath: Sub
// negates it. PyTorch's CPU kernels hold alpha in the tensor's own dtype
// (float16 rounds 0.3 to 0.30005); integers and opmath-sized types are unchanged.
template <BinaryFn op, class T>
opmath_t<T> add_alpha(const Scalar& alpha) {
  using M = opmath_t<T>;
  const M al_m = op == BinaryFn::Sub ? pwmath::wrap_neg(alpha.to<M>()) : alpha.to<M>();
  return kind_of<T>() == kFloat ? static_cast<M>(static_cast<T>(al_m)) : al_m;
}

// Floating Add/Sub: out = fma(al, y, x). With al = +-1 the fma is exact to
// x +- y, a plain loop the compiler vectorizes; otherwise contiguous runs of
// float32/bfloat16/float16 go to the FMA3 kernel instead of a libm fma call
// per element.
template <class T, class F>
void add_scaled(const TensorView& out, const TensorView& x, const TensorView& y, opmath_t<T> al, const F& fma_fn) {
  using M = opmath_t<T>;
  auto fp = [](auto f) { return [f](T a, T b) { return narrow<T>(f(widen(a), widen(b))); }; };
  if (al == M(1)) return map_binary<T, T, T>(out, x, y, fp([](M a, M b) { return a + b; }));
  if (al == M(-1)) return map_binary<T, T, T>(out, x, y, fp([](M a, M b) { return a - b; }));
  if constexpr (std::is_same_v<M, float>) {
    struct Ctx {
      float al;
      const F* fn;
    } const ctx{al, &fma_fn};
    run_pointwise<3>(
        {&out, &x, &y},
        [](const void* c, const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t n) {
          const Ctx& k = *static_cast<const Ctx*>(c);
          if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == sizeof(T)) {
            return fused_axpy<T>(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]),
                                 reinterpret_cast<const T*>(p[2]), k.al, n);
          }
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<T*>(p[0] + i * s[0]) =
                (*k.fn)(*reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]));
          }
        },
        &ctx);
  } else {
    map_binary<T, T, T>(out, x, y, fma_fn);
  }
}

// A double result rounded once to T (via float for half/bfloat16, whose
// conversions start from float).
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else return static_cast<T>(static_cast<float>(v));
}

// The next representable T after a in b's direction (IEEE nextafter), also
// for half/bfloat16, whose neighbours are one step of the 16-bit pattern.
template <class T>
T next_after(T a, T b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::nextafter(a, b);
  } else {
    const float fa = static_cast<float>(a);
    const float fb = static_cast<float>(b);
    if (std::isnan(fa) || std::isnan(fb)) return static_cast<T>(fa + fb);
    if (fa == fb) return b;
    uint16_t bits;
    if (fa == 0.0f) {
      bits = fb < 0 ? 0x8001 : 0x0001;  // the smallest subnormal, with b's sign
    } else {
      bits = Eigen::numext::bit_cast<uint16_t>(a);
      bits = static_cast<uint16_t>(((fa < fb) == (fa > 0)) ? bits + 1 : bits - 1);  // away from / toward 0
    }
    return Eigen::numext::bit_cast<T>(bits);
  }
}

// The element function of `op` on T (for T in compute_kinds(op)). The second
// argument is T, or float for a host scalar kept in opmath.
template <BinaryFn op, class T>
auto binary_fn(const Scalar& alpha) {
  using M = opmath_t<T>;
  constexpr unsigned kind = kind_of<T>();
  constexpr bool is_int = kind == kInt;
  constexpr bool is_bool = kind == kBool;
  // Floating/complex ops compute in opmath and round once.
  auto fp = [](auto f) { return [f](T x, auto y) { return narrow<T>(f(widen(x), widen(y))); }; };
  auto cmp = [](auto f) { return [f](T x, T y) { return f(static_cast<M>(x), static_cast<M>(y)); }; };

  if constexpr (op == BinaryFn::Add || op == BinaryFn::Sub) {
    if constexpr (is_bool) {
      return [al = alpha.to<bool>()](T x, T y) { return x || (al && y); };  // sub rejects bool earlier
    } else {
      const M al = add_alpha<op, T>(alpha);
      if constexpr (is_int) return [al](T x, T y) { return pwmath::wrap_add(x, pwmath::wrap_mul(al, y)); };
      // PyTorch's vectorized CPU kernels fuse x + alpha * y into one fma;
      // rounding the product first differs in the last bit of half results.
      // (add_scaled() runs alpha = +-1 and contiguous runs on faster paths.)
      else if constexpr (kind == kFloat) return fp([al](M x, M y) { return std::fma(al, y, x); });
      else return fp([al](M x, M y) { return x + al * y; });
    }
  } else if constexpr (op == BinaryFn::Mul) {
    if constexpr (is_bool) return [](T x, T y) { return x && y; };
    else if constexpr (is_int) return [](T x, T y) { return pwmath::wrap_mul(x, y); };
    else return fp([](M x, M y) { return x * y; });
  } else if constexpr (op == BinaryFn::Div) {
    return fp([](M x, M y) { return x / y; });
  } else if constexpr (op == BinaryFn::DivTrunc) {
    if constexpr (is_int) return [](T x, T y) { return pwmath::int_div_trunc(x, y); };
    // The quotient is rounded to T before truncation, as PyTorch's CPU
    // kernels do (-23.92 / 0.4514 is -52.993, which float16 rounds to -53).
    else return fp([](M x, M y) { return std::trunc(static_cast<M>(static_cast<T>(x / y))); });
  } else if constexpr (op == BinaryFn::DivFloor) {
    if constexpr (is_int) return [](T x, T y) { return pwmath::int_div_floor(x, y); };
    else return fp([](M x, M y) { return pwmath::float_div_floor<M, T>(x, y); });
  } else if constexpr (op == BinaryFn::Remainder) {
    if constexpr (is_int) return [](T x, T y) { return pwmath::int_remainder(x, y); };
    else return fp([](M x, M y) { return pwmath::float_remainder(x, y); });
  } else if constexpr (op == BinaryFn::Fmod) {
    if constexpr (is_int) return [](T x, T y) { return pwmath::int_fmod(x, y); };
    else return fp([](M x, M y) { return std::fmod(x, y); });
  } else if constexpr (op == BinaryFn::Pow) {
    if constexpr (is_int) return [](T x, T y) { return pwmath::int_pow(x, y); };
    else return fp([](M x, M y) { return std::pow(x, y); });
  } else if constexpr (op == BinaryFn::Atan2) {
    return fp([](M x, M y) { return std::atan2(x, y); });
  } else if constexpr (op == BinaryFn::Maximum || op == BinaryFn::Minimum) {
    constexpr bool is_max = op == BinaryFn::Maximum;
    if constexpr (is_bool) return [](T x, T y) { return is_max ? (x || y) : (x && y); };
    else return fp([](M x, M y) { return is_max ? pwmath::max_nan(x, y) : pwmath::min_nan(x, y); });
  } else if constexpr (op == BinaryFn::Hypot) {
    return fp([](M x, M y) { return std::hypot(x, y); });
  } else if constexpr (op == BinaryFn::LogAddExp || op == BinaryFn::LogAddExp2) {
    // Equal infinities would give inf - inf = nan below; their sum is the infinity itself.
    constexpr bool base2 = op == BinaryFn::LogAddExp2;
    return fp([](M x, M y) {
      if (std::isinf(x) && x == y) return x;
      const M m = pwmath::max_nan(x, y);
      const M d = -std::abs(x - y);
      return base2 ? m + std::log1p(std::exp2(d)) / std::log(M(2)) : m + std::log1p(std::exp(d));
    });
  } else if constexpr (op == BinaryFn::BitwiseAnd || op == BinaryFn::LogicalAnd) {
    return [](T x, T y) { return static_cast<T>(x & y); };
  } else if constexpr (op == BinaryFn::BitwiseOr || op == BinaryFn::LogicalOr) {
    return [](T x, T y) { return static_cast<T>(x | y); };
  } else if constexpr (op == BinaryFn::BitwiseXor || op == BinaryFn::LogicalXor) {
    return [](T x, T y) { return static_cast<T>(x ^ y); };
  } else if constexpr (op == BinaryFn::LeftShift) {
    return [](T x, T y) { return pwmath::shift_left(x, y); };
  } else if constexpr (op == BinaryFn::RightShift) {
    return [](T x, T y) { return pwmath::shift_right(x, y); };
  } else if constexpr (op == BinaryFn::Eq) {
    return cmp([](M x, M y) { return x == y; });
  } else if constexpr (op == BinaryFn::Ne) {
    return cmp([](M x, M y) { return x != y; });
  } else if constexpr (op == BinaryFn::Lt) {
    return cmp([](M x, M y) { return x < y; });
  } else if constexpr (op == BinaryFn::Le) {
    return cmp([](M x, M y) { return x <= y; });
  } else if constexpr (op == BinaryFn::Gt) {
    return cmp([](M x, M y) { return x > y; });
  } else if constexpr (op == BinaryFn::Copysign) {
    return fp([](M x, M y) { return std::copysign(x, y); });
  } else if constexpr (op == BinaryFn::Fmax || op == BinaryFn::Fmin) {
    constexpr bool is_max = op == BinaryFn::Fmax;
    if constexpr (is_bool) return [](T x, T y) { return is_max ? (x || y) : (x && y); };
    else if constexpr (is_int) return [](T x, T y) { return is_max ? std::max(x, y) : std::min(x, y); };
    else return fp([](M x, M y) { return is_max ? std::fmax(x, y) : std::fmin(x, y); });
  } else if constexpr (op == BinaryFn::Heaviside) {
    // A NaN self is neither 0 nor positive: 0, as PyTorch's formula gives.
    return [](T x, T y) { return x == T(0) ? y : static_cast<T>(x > T(0)); };
  } else if constexpr (op == BinaryFn::Nextafter) {
    return [](T x, T y) { return next_after<T>(x, y); };
  } else if constexpr (op == BinaryFn::Xlogy || op == BinaryFn::Xlog1py || op == BinaryFn::Igamma ||
                       op == BinaryFn::Igammac) {
    return [](T x, auto y) {
      const double a = static_cast<double>(x);
      const double b = static_cast<double>(y);
      double r;
      if constexpr (op == BinaryFn::Xlogy) r = special::xlogy(a, b);
      else if constexpr (op == BinaryFn::Xlog1py) r = special::xlog1py(a, b);
      else if constexpr (op == BinaryFn::Igamma) r = special::igamma(a, b);
      else r = special::igammac(a, b);
      return from_double<T>(r);
    };
  } else {
    static_assert(op == BinaryFn::Ge, "every BinaryFn has an element function");
    return cmp([](M x, M y) { return x >= y; });
  }
}

template <BinaryFn op, class T>
void run(const TensorView& out, const TensorView& x, const TensorView& y, const Scalar& alpha) {
  if constexpr ((compute_kinds(kBinaryFns[static_cast<std::size_t>(op)]) & kind_of<T>()) != 0) {
    const auto fn = binary_fn<op, T>(alpha);
    using Out = std::decay_t<decltype(fn(std::declval<T>(), std::declval<T>()))>;
    if (dtype_of<Out>() != out.dtype) throw KernelError(std::string(info(op).name) + ": internal dtype mismatch");
    if constexpr ((op == BinaryFn::Add || op == BinaryFn::Sub) && kind_of<T>() == kFloat) {
      return add_scaled<T>(out, x, y, add_alpha<op, T>(alpha), fn);
    }
    if constexpr (keeps_scalar_in_opmath(op) && is_reduced_float_v<T>) {
      if (y.dtype == DType::Float32) return map_binary<Out, T, float>(out, x, y, fn);
    }
    map_binary<Out, T, T>(out, x, y, fn);
  } else {
    throw_unsupported(info(op).name, x.dtype);
  }
}

// x ** e for a floating tensor and a host scalar exponent, with the shortcuts
// PyTorch takes (and whose results differ from std::pow in the last bit or at
// -0 and -inf: sqrt(-0) is -0, pow(-0, 0.5) is +0).
void pow_scalar(const TensorView& out, const TensorView& x, const Scalar& exponent) {
  visit_pointwise_dtype("pow", x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kind_of<T>() == kFloat) {
      using M = opmath_t<T>;
      const M e = static_cast<M>(exponent.to<T>());
      map_unary<T, T>(out, x, [e](T t) {
        const M v = static_cast<M>(t);
        if (e == M(2)) return static_cast<T>(v * v);
        if (e == M(3)) return static_cast<T>(v * v * v);
        if (e == M(-2)) return static_cast<T>(M(1) / (v * v));
        if (e == M(0.5)) return static_cast<T>(std::sqrt(v));
        if (e == M(-0.5)) return static_cast<T>(M(1) / std::sqrt(v));
        if (e == M(-1)) return static_cast<T>(M(1) / v);
        return static_cast<T>(std::pow(v, e));
      });
    }
  });
}

}  // namespace

const char* binary_op_name(BinaryFn op) { return info(op).name; }

BinaryDtypes binary_dtypes(BinaryFn op, const Operand& a, const Operand& b, DType out, const Scalar& alpha) {
  const DType compute = compute_dtype(info(op), result_type({&a, &b}, out), out);
  if ((op == BinaryFn::Add || op == BinaryFn::Sub) && model::is_integral(compute) &&
      (model::is_floating_point(alpha.dtype()) || model::is_complex(alpha.dtype()))) {
    throw KernelError(std::string(info(op).name) +
                      ": for integral input tensors, argument alpha must not be a floating point number");
  }
  if (op == BinaryFn::Pow && model::is_integral(compute) && b.is_scalar() && b.scalar().to<int64_t>() < 0 &&
      !model::is_floating_point(b.dtype())) {
    throw KernelError("pow: Integers to negative integer powers are not allowed.");
  }
  return {compute, result_dtype(info(op), compute)};
}

DType binary_result_dtype(BinaryFn op, const Operand& a, const Operand& b, DType out, const Scalar& alpha) {
  return binary_dtypes(op, a, b, out, alpha).result;
}

void binary(BinaryFn op, const TensorView& out, const Operand& a, const Operand& b, const Scalar& alpha) {
  const BinaryDtypes dtypes = binary_dtypes(op, a, b, out.dtype, alpha);
  const Shape shape = broadcast_operands({&a, &b});
  if (out.sizes != shape) {
    throw KernelError(std::string(info(op).name) + ": out has shape " + shape_str(out.sizes) + ", expected " +
                      shape_str(shape));
  }
  binary(op, dtypes, out, a, b, alpha);
}

void binary(BinaryFn op, const BinaryDtypes& dtypes, const TensorView& out, const Operand& a, const Operand& b,
            const Scalar& alpha) {
  const auto [compute, result] = dtypes;
  const Shape& shape = out.sizes;
  const auto compute_into_out = [&](const TensorView& x, const TensorView& y) {
    with_output_dtype(out, result, [&](const TensorView& o) {
      if (op == BinaryFn::Pow && b.is_scalar() && model::is_floating_point(compute)) {
        return pow_scalar(o, x, b.scalar());
      }
      visit_pointwise_dtype(info(op).name, compute, [&](auto tag) {
        using T = typename decltype(tag)::type;
        visit_op<BinaryFn, kNumOps>(op, [&](auto op_c) { run<decltype(op_c)::value, T>(o, x, y, alpha); });
      });
    });
  };
  // Two tensors of out's shape already in the compute dtype (most small
  // ops): used as they are. operand_as and broadcast_to would return the
  // same views, at the price of two view copies each (a small op's launch
  // time is mostly such overhead). Bool operands take the general path,
  // which normalizes bool bytes above one.
  if (!a.is_scalar() && !b.is_scalar() && compute != DType::Bool && a.tensor().dtype == compute &&
      b.tensor().dtype == compute && a.tensor().sizes == shape && b.tensor().sizes == shape) {
    return compute_into_out(a.tensor(), b.tensor());
  }
  std::optional<ScratchTensor> hold_a, hold_b;
  const TensorView x = broadcast_to(operand_as(a, compute, hold_a), shape);
  const bool opmath_scalar = keeps_scalar_in_opmath(op) && b.is_scalar() &&
                             (compute == DType::Float16 || compute == DType::BFloat16);
  const TensorView y = broadcast_to(operand_as(b, opmath_scalar ? DType::Float32 : compute, hold_b), shape);
  compute_into_out(x, y);
}

}  // namespace npu::kernels
