// The reductions PyTorch gives no structured meta function (ops/table/reduce.yaml
// names each with `impl:`): the full forms sum(), mean(), prod(), max(), min(),
// logsumexp, and var/std (with var_mean/std_mean). Each decides native or
// fallback from the table before launching; the structured reductions are
// generated from the table.
#include <cmath>
#include <optional>
#include <type_traits>

#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/ops/logsumexp_native.h>
#include <ATen/ops/mean_meta.h>
#include <ATen/ops/sum_meta.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/acl_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"
#include "dispatch/ops/reductions.h"
#include "dispatch/table/arg_conversions.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using Dtype = std::optional<at::ScalarType>;

// ---- sum(), mean(): the dim forms' meta over every dim -------------------------

namespace {

// The dim form's meta (Meta) over every dim, then aclnnReduceSum or aclnnMean.
template <class Meta>
at::Tensor reduce_all(const char* schema, const at::Tensor& self, Dtype dtype) {
  constexpr bool kMean = std::is_same_v<Meta, at::meta::structured_mean_dim>;
  npu::table::Functional<Meta, 1> op;
  op.meta(self, at::OptionalIntArrayRef(), false, dtype);
  at::Tensor& out = op.output(0);
  if (!npu::run_native(kMean ? caps::aclnnMean : caps::aclnnReduceSum, schema,
                       npu::table::operand_dtypes(out.scalar_type(), self))) {
    return npu::fallback_call<at::Tensor>(schema, self, dtype);
  }
  if constexpr (kMean) {
    NPU_RUN(aclnnMean, self, at::IntArrayRef(), false, npu::table::acl_dtype_of(out), out);
  } else {
    NPU_RUN(aclnnReduceSum, self, at::IntArrayRef(), false, npu::table::acl_dtype_of(out), out);
  }
  return std::move(out);
}

}  // namespace

at::Tensor sum_all(const at::Tensor& self, Dtype dtype) {
  return reduce_all<at::meta::structured_sum_dim_IntList>("sum", self, dtype);
}

at::Tensor mean_all(const at::Tensor& self, Dtype dtype) {
  return reduce_all<at::meta::structured_mean_dim>("mean", self, dtype);
}

// ---- prod() ------------------------------------------------------------------------

// dtype=, else integers (and bool) widen to int64, as sum.
at::Tensor prod_all(const at::Tensor& self, Dtype dtype) {
  check_npu("prod", "self", self);
  const at::ScalarType result = dtype ? *dtype : at::native::get_dtype_from_self(self, std::nullopt, true);
  if (!npu::run_native(caps::aclnnProd, "prod", npu::table::operand_dtypes(result, self))) {
    return npu::fallback_call<at::Tensor>("prod", self, dtype);
  }
  return new_result(self, {}, result, [&](const at::Tensor& out) {
    NPU_RUN(aclnnProd, self, npu::table::acl_dtype_of(out), out);
  });
}

namespace {

void reject_complex(const char* name, const at::Tensor& self) {
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex(), name, " is not implemented for ", self.scalar_type());
}

// ---- max(), min() over everything: aclnnAmax/aclnnAmin with PyTorch's messages ----

Reduction full_extreme(bool is_max) {
  const char* name = is_max ? "max()" : "min()";
  return {name,
          [name](const at::Tensor& self, Dtype, Dtype) {
            reject_complex(name, self);
            return self.scalar_type();
          },
          [is_max](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
            if (is_max) {
              NPU_RUN(aclnnAmax, self, dims, keepdim, out);
            } else {
              NPU_RUN(aclnnAmin, self, dims, keepdim, out);
            }
          },
          true};
}

bool extreme_native(bool is_max, const char* schema, const at::Tensor& self) {
  check_npu(is_max ? "max()" : "min()", "self", self);
  reject_complex(is_max ? "max()" : "min()", self);
  return npu::run_native(is_max ? caps::aclnnAmax : caps::aclnnAmin, schema, {self.scalar_type()});
}

}  // namespace

at::Tensor max_all(const at::Tensor& self) {
  if (!extreme_native(true, "max", self)) return npu::fallback_call<at::Tensor>("max", self);
  return reduce(full_extreme(true), self, std::nullopt, false);
}
at::Tensor min_all(const at::Tensor& self) {
  if (!extreme_native(false, "min", self)) return npu::fallback_call<at::Tensor>("min", self);
  return reduce(full_extreme(false), self, std::nullopt, false);
}
at::Tensor& max_all_out(const at::Tensor& self, at::Tensor& out) {
  if (!extreme_native(true, "max.unary_out", self)) return npu::fallback_call<at::Tensor&>("max.unary_out", self, out);
  return reduce_out(full_extreme(true), self, std::nullopt, false, std::nullopt, out);
}
at::Tensor& min_all_out(const at::Tensor& self, at::Tensor& out) {
  if (!extreme_native(false, "min.unary_out", self)) return npu::fallback_call<at::Tensor&>("min.unary_out", self, out);
  return reduce_out(full_extreme(false), self, std::nullopt, false, std::nullopt, out);
}

// ---- logsumexp ---------------------------------------------------------------------

namespace {

// Integers compute in the default float dtype.
at::ScalarType floating_dtype(const at::Tensor& self, Dtype, Dtype) {
  return at::isIntegralType(self.scalar_type(), true) ? at::typeMetaToScalarType(at::get_default_dtype())
                                                       : self.scalar_type();
}

const Reduction& logsumexp_reduction() {
  static const Reduction r{"logsumexp()", floating_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnLogSumExp, self, dims, keepdim, out);
                           }};
  return r;
}

}  // namespace

// The aclnn entry takes real input; a complex one composes PyTorch's formula
// from other ops.
at::Tensor logsumexp(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  if (self.is_complex()) return at::native::logsumexp(self, dim, keepdim);
  if (!npu::run_native(caps::aclnnLogSumExp, "logsumexp", {floating_dtype(self, std::nullopt, std::nullopt)})) {
    return npu::fallback_call<at::Tensor>("logsumexp", self, dim, keepdim);
  }
  return reduce(logsumexp_reduction(), self, dim, keepdim);
}
at::Tensor& logsumexp_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  if (self.is_complex()) return at::native::logsumexp_out(self, dim, keepdim, out);
  if (!npu::run_native(caps::aclnnLogSumExp, "logsumexp.out", {floating_dtype(self, std::nullopt, std::nullopt)})) {
    return npu::fallback_call<at::Tensor&>("logsumexp.out", self, dim, keepdim, out);
  }
  return reduce_out(logsumexp_reduction(), self, dim, keepdim, std::nullopt, out);
}

// ---- var and std ---------------------------------------------------------------------

namespace {

at::ScalarType statistics_dtype(const at::Tensor& self, Dtype, Dtype) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "std and var only support floating point and complex dtypes");
  return at::toRealValueType(self.scalar_type());
}

// The aclnn entries take an integral correction; a fractional one scales the
// biased variance by N / max(0, N - correction), PyTorch's divisor.
struct Correction {
  int64_t integral = 1;
  std::optional<double> fractional;
};
Correction correction_of(const std::optional<at::Scalar>& c) {
  if (!c) return {};
  const double v = c->toDouble();
  if (v == std::floor(v)) return {static_cast<int64_t>(v), std::nullopt};
  return {0, v};
}

Reduction variance(const Correction& c, bool take_sqrt) {
  return {"var", statistics_dtype,
          [c, take_sqrt](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
            if (take_sqrt) {
              NPU_RUN(aclnnStd, self, dims, c.integral, keepdim, out);
            } else {
              NPU_RUN(aclnnVarCorrection, self, dims, c.integral, keepdim, out);
            }
          }};
}

// PyTorch's divisor for a fractional correction, over the biased one: N / max(0, N - c).
double fractional_scale(const at::Tensor& self, const at::Tensor& result, double correction) {
  const int64_t n = self.numel() / std::max<int64_t>(result.numel(), 1);
  return static_cast<double>(n) / std::max(0.0, static_cast<double>(n) - correction);
}

// The aclnn entries take real input: var(z) = var(Re z) + var(Im z) for
// complex z, and std(z) is the 2-norm of (std(Re z), std(Im z)).
at::Tensor var_or_std_of(const at::Tensor& self, at::OptionalIntArrayRef dim, const Correction& c, bool keepdim,
                         bool take_sqrt) {
  if (self.is_complex()) {
    const at::Tensor re = var_or_std_of(at::real(self), dim, c, keepdim, take_sqrt);
    const at::Tensor im = var_or_std_of(at::imag(self), dim, c, keepdim, take_sqrt);
    if (!take_sqrt) return re.add(im);
    return at::linalg_vector_norm(at::stack({re, im}), 2, at::IntArrayRef(0), false, std::nullopt);
  }
  at::Tensor r = reduce(variance(c, take_sqrt), self, dim, keepdim);
  if (c.fractional) {
    const double scale = fractional_scale(self, r, *c.fractional);
    r.mul_(take_sqrt ? std::sqrt(scale) : scale);
  }
  return r;
}

// CPU's warning when the correction leaves no degrees of freedom (N - c <= 0,
// N the input elements per output element, 0 for an empty output).
const at::Tensor& warn_invalid_degrees_of_freedom(const char* fname, const at::Tensor& self,
                                                  const std::optional<at::Scalar>& correction,
                                                  const at::Tensor& result) {
  const double c = correction ? correction->toDouble() : 1.0;
  const int64_t n = result.numel() == 0 ? 0 : self.numel() / result.numel();
  // CPU reduces a complex self's real and imaginary parts separately: twice.
  for (int part = 0; static_cast<double>(n) - c <= 0 && part < (self.is_complex() ? 2 : 1); ++part) {
    TORCH_WARN(fname, "(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
               "(input numel divided by output numel).");
  }
  return result;
}

// var or std (take_sqrt) of self with CPU's warning (named `fname`), or none
// when aclnnVarCorrection / aclnnStd cannot run it (the caller then falls
// back for `schema`).
std::optional<at::Tensor> statistics(bool take_sqrt, const char* schema, const char* fname, const at::Tensor& self,
                                     at::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                                     bool keepdim) {
  const at::ScalarType real = statistics_dtype(self, std::nullopt, std::nullopt);
  if (!npu::run_native(take_sqrt ? caps::aclnnStd : caps::aclnnVarCorrection, schema, {real})) return std::nullopt;
  return warn_invalid_degrees_of_freedom(fname, self, correction,
                                         var_or_std_of(self, dim, correction_of(correction), keepdim, take_sqrt));
}

}  // namespace

at::Tensor var_or_std(bool take_sqrt, const char* schema, const at::Tensor& self, at::OptionalIntArrayRef dim,
                      const std::optional<at::Scalar>& correction, bool keepdim) {
  std::optional<at::Tensor> r = statistics(take_sqrt, schema, take_sqrt ? "std" : "var", self, dim, correction,
                                           keepdim);
  if (!r) return npu::fallback_call<at::Tensor>(schema, self, dim, correction, keepdim);
  return std::move(*r);
}

at::Tensor& var_or_std_out(bool take_sqrt, const char* schema, const at::Tensor& self, at::OptionalIntArrayRef dim,
                           const std::optional<at::Scalar>& correction, bool keepdim, at::Tensor& out) {
  const std::optional<at::Tensor> r =
      statistics(take_sqrt, schema, take_sqrt ? "std" : "var", self, dim, correction, keepdim);
  if (!r) return npu::fallback_call<at::Tensor&>(schema, self, dim, correction, keepdim, out);
  write_out(out, r->sizes(), r->scalar_type(), [&](const at::Tensor& o) { o.copy_(*r); });
  return out;
}

std::tuple<at::Tensor, at::Tensor> var_or_std_mean(bool take_sqrt, const char* schema, const at::Tensor& self,
                                                   at::OptionalIntArrayRef dim,
                                                   const std::optional<at::Scalar>& correction, bool keepdim) {
  std::optional<at::Tensor> r =
      statistics(take_sqrt, schema, take_sqrt ? "std_mean" : "var_mean", self, dim, correction, keepdim);
  if (!r) return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>(schema, self, dim, correction, keepdim);
  return {std::move(*r), at::mean(self, dim, keepdim)};
}

std::tuple<at::Tensor&, at::Tensor&> mode_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                 at::Tensor& values, at::Tensor& indices) {
  // CPU's checks (and words) for outs on another device; the fallback would
  // otherwise fail later, copying CPU results into them.
  TORCH_CHECK(values.device() == self.device(), "expected device '", self.device(), "' but got '", values.device(),
              "' for values output");
  TORCH_CHECK(indices.device() == self.device(), "expected device '", self.device(), "' but got '",
              indices.device(), "' for indices output");
  return npu::fallback_call<std::tuple<at::Tensor&, at::Tensor&>>("mode.values", self, dim, keepdim, values,
                                                                  indices);
}

}  // namespace npu::ops
