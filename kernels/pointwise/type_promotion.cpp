#include "kernels/pointwise/type_promotion.h"

#include <optional>

namespace npu::kernels {

namespace {

using model::promote_types;

int category(DType d) {
  if (d == DType::Bool) return 0;
  if (model::is_complex(d)) return 3;
  if (model::is_floating_point(d)) return 2;
  return 1;
}

// The dtype of the higher-priority group, unless the lower group has a higher
// category. A complex lower group keeps the higher group's float precision
// (float64 tensor * 1j is complex128).
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower || category(*higher) >= category(*lower)) return higher;
  if (category(*lower) == 3 && category(*higher) == 2) return promote_types(*higher, DType::Complex64);
  return promote_types(*higher, *lower);
}

void accumulate(std::optional<DType>& group, DType dtype) { group = group ? promote_types(*group, dtype) : dtype; }

}  // namespace

DType default_float(DType out) { return out == DType::Float64 ? DType::Float64 : DType::Float32; }

DType default_complex(DType out) { return out == DType::Complex128 ? DType::Complex128 : DType::Complex64; }

DType result_type(std::initializer_list<const Operand*> operands, DType out) {
  std::optional<DType> dims, zero_dim, scalars;
  for (const Operand* op : operands) {
    if (!op->present()) continue;
    const DType d = op->dtype();
    if (op->is_scalar()) {
      // A host scalar counts as its category's default dtype (a double 2.5
      // is "a float", not float64).
      const DType as = model::is_complex(d) ? default_complex(out)
                       : model::is_floating_point(d) ? default_float(out)
                                                    : d;
      accumulate(scalars, as);
    } else if (op->tensor().dim() == 0) {
      accumulate(zero_dim, d);
    } else {
      accumulate(dims, d);
    }
  }
  const std::optional<DType> r = combine(dims, combine(zero_dim, scalars));
  if (!r) throw KernelError("result_type: no operands");
  return *r;
}

DType compute_dtype(const OpInfo& info, DType common, DType out) {
  const bool supported = (info.kinds & kind_of(common)) != 0 && common != DType::UInt16 &&
                         common != DType::UInt32 && common != DType::UInt64 && common != DType::Complex128;
  if (!supported) throw_unsupported(info.name, common);
  switch (info.rule) {
    case ResultRule::Float:
      return (common == DType::Bool || model::is_integral(common)) ? default_float(out) : common;
    case ResultRule::Logical:
      return DType::Bool;
    default:
      return common;
  }
}

DType result_dtype(const OpInfo& info, DType compute) {
  switch (info.rule) {
    case ResultRule::RealOfComplex:
      return compute == DType::Complex64 ? DType::Float32 : compute;
    case ResultRule::Bool:
    case ResultRule::Logical:
      return DType::Bool;
    default:
      return compute;
  }
}

}  // namespace npu::kernels
