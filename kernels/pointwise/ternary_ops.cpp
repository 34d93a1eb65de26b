#include "kernels/pointwise/ternary_ops.h"

#include <algorithm>
#include <limits>

#include "kernels/pointwise/pointwise_kinds.h"
#include "kernels/pointwise/pointwise_loop.h"
#include "kernels/pointwise/pointwise_math.h"
#include "kernels/pointwise/type_promotion.h"

namespace npu::kernels {

namespace {

using R = ResultRule;

// Indexed by TernaryFn.
constexpr OpInfo kTernaryFns[] = {
    {"where", kAnyKind, R::Same},
    {"lerp", kFloat, R::Same},
    {"addcmul", kIntFloat, R::Same},
    {"addcdiv", kFloat, R::Same},
    {"clamp", kIntFloat, R::Same},
};
constexpr std::size_t kNumOps = static_cast<std::size_t>(TernaryFn::kCount);
static_assert(sizeof(kTernaryFns) / sizeof(kTernaryFns[0]) == kNumOps, "one table row per TernaryFn");

const OpInfo& info(TernaryFn op) { return kTernaryFns[static_cast<std::size_t>(op)]; }

// The common dtype of the operands that carry values (Where's condition
// only selects, Lerp's scalar weight only scales).
DType common_dtype(TernaryFn op, const Operand& a, const Operand& b, const Operand& c, DType out) {
  if (op == TernaryFn::Where) return result_type({&b, &c}, out);
  // A scalar weight does not promote: lerp of integer tensors is an error.
  if (op == TernaryFn::Lerp && c.is_scalar()) return result_type({&a, &b}, out);
  return result_type({&a, &b, &c}, out);
}

// A 0-dim tensor holding T's top (or bottom) value: the bound Clamp uses when
// the caller gave none. Infinity for floats, so NaN still propagates.
TensorView unbounded(DType dtype, bool upper, std::optional<ScratchTensor>& holder) {
  holder.emplace(dtype, Shape{});
  visit_pointwise_dtype("clamp", dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kind_of<T>() == kFloat || kind_of<T>() == kInt) {
      using L = std::numeric_limits<T>;
      if constexpr (kind_of<T>() == kFloat) *holder->view().ptr<T>() = upper ? L::infinity() : -L::infinity();
      else *holder->view().ptr<T>() = upper ? L::max() : L::lowest();
    }
  });
  return holder->view();
}

template <TernaryFn op, class T>
void run(const TensorView& out, const TensorView& a, const TensorView& b, const TensorView& c, const Scalar& value) {
  using M = opmath_t<T>;
  constexpr unsigned kind = kind_of<T>();
  if constexpr ((compute_kinds(kTernaryFns[static_cast<std::size_t>(op)]) & kind) == 0) {
    throw_unsupported(info(op).name, b.dtype);
  } else if constexpr (op == TernaryFn::Where) {
    map_ternary<T, bool, T, T>(out, a, b, c, [](bool cond, T x, T y) { return cond ? x : y; });
  } else if constexpr (op == TernaryFn::Lerp) {
    // The weight arrives in opmath (a host scalar weight is not rounded to T).
    map_ternary<T, T, T, M>(out, a, b, c, [](T s, T e, M w) {
      const M x = static_cast<M>(s), y = static_cast<M>(e);
      return static_cast<T>(std::abs(w) < M(0.5) ? x + w * (y - x) : y - (y - x) * (M(1) - w));
    });
  } else if constexpr (op == TernaryFn::Addcmul || op == TernaryFn::Addcdiv) {
    const M v = value.to<M>();
    map_ternary<T, T, T, T>(out, a, b, c, [v](T s, T t1, T t2) {
      if constexpr (kind == kInt) {
        return pwmath::wrap_add(s, pwmath::wrap_mul(pwmath::wrap_mul(v, t1), t2));
      } else {
        const M scaled = v * static_cast<M>(t1);
        return static_cast<T>(static_cast<M>(s) + (op == TernaryFn::Addcmul ? scaled * static_cast<M>(t2)
                                                                            : scaled / static_cast<M>(t2)));
      }
    });
  } else {
    static_assert(op == TernaryFn::Clamp, "every TernaryFn has a kernel");
    map_ternary<T, T, T, T>(out, a, b, c, [](T x, T lo, T hi) {
      if constexpr (kind == kInt) {
        return std::min(std::max(x, lo), hi);
      } else {
        return static_cast<T>(pwmath::min_nan(pwmath::max_nan(static_cast<M>(x), static_cast<M>(lo)),
                                              static_cast<M>(hi)));
      }
    });
  }
}

}  // namespace

const char* ternary_op_name(TernaryFn op) { return info(op).name; }

DType ternary_result_dtype(TernaryFn op, const Operand& a, const Operand& b, const Operand& c, DType out) {
  const char* name = info(op).name;
  if (!a.present() || (op != TernaryFn::Clamp && (!b.present() || !c.present()))) {
    throw KernelError(std::string(name) + ": missing operand");
  }
  if (op == TernaryFn::Clamp && !b.present() && !c.present()) {
    throw KernelError("clamp: at least one of min and max must be given");
  }
  if (op == TernaryFn::Where && a.dtype() != DType::Bool && a.dtype() != DType::UInt8) {
    throw KernelError(std::string("where: condition must be bool or uint8, got ") + model::dtype_name(a.dtype()));
  }
  return result_dtype(info(op), compute_dtype(info(op), common_dtype(op, a, b, c, out), out));
}

void ternary(TernaryFn op, const TensorView& out, const Operand& a, const Operand& b, const Operand& c,
             const Scalar& value) {
  const DType result = ternary_result_dtype(op, a, b, c, out.dtype);
  const DType compute = compute_dtype(info(op), common_dtype(op, a, b, c, out.dtype), out.dtype);
  const Shape shape = broadcast_operands({&a, &b, &c});
  if (out.sizes != shape) {
    throw KernelError(std::string(info(op).name) + ": out has shape " + shape_str(out.sizes) + ", expected " +
                      shape_str(shape));
  }
  // Per-operand dtypes: Where's condition is bool, Lerp's weight is opmath.
  const DType opmath = (compute == DType::Float16 || compute == DType::BFloat16) ? DType::Float32 : compute;
  const DType a_dtype = op == TernaryFn::Where ? DType::Bool : compute;
  const DType c_dtype = op == TernaryFn::Lerp ? opmath : compute;
  std::optional<ScratchTensor> hold_a, hold_b, hold_c;
  const TensorView x = broadcast_to(operand_as(a, a_dtype, hold_a), shape);
  const TensorView y = broadcast_to(b.present() ? operand_as(b, compute, hold_b) : unbounded(compute, false, hold_b),
                                    shape);
  const TensorView z = broadcast_to(c.present() ? operand_as(c, c_dtype, hold_c) : unbounded(compute, true, hold_c),
                                    shape);
  with_output_dtype(out, result, [&](const TensorView& o) {
    visit_pointwise_dtype(info(op).name, compute, [&](auto tag) {
      using T = typename decltype(tag)::type;
      visit_op<TernaryFn, kNumOps>(op, [&](auto op_c) { run<decltype(op_c)::value, T>(o, x, y, z, value); });
    });
  });
}

}  // namespace npu::kernels
