// Reductions over dim lists on npu: sum, mean, amax/amin, all/any,
// logsumexp, norm, var/std (and var_mean/std_mean), each one aclnn entry
// behind the shared reduction shape of reduce_op.h.
#include <cmath>

#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/ops/logsumexp_native.h>
#include <torch/library.h>

#include "dispatch/ops/acl_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

using Dtype = std::optional<at::ScalarType>;

// ---- dtype rules -----------------------------------------------------------

// sum and prod: dtype=, else out's dtype, else integers (and bool) widen to int64.
at::ScalarType summing_dtype(const at::Tensor& self, Dtype dtype, Dtype out) {
  if (dtype) return *dtype;
  if (out) return *out;
  return at::native::get_dtype_from_self(self, std::nullopt, true);
}

at::ScalarType mean_dtype(const at::Tensor& self, Dtype dtype, Dtype out) {
  const at::ScalarType in = at::native::get_dtype_from_self(self, dtype, true);
  TORCH_CHECK(at::isFloatingType(in) || at::isComplexType(in), "mean(): could not infer output dtype. ",
              dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ", in);
  return dtype.value_or(out.value_or(self.scalar_type()));
}

void reject_complex(const char* name, const at::Tensor& self) {
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex(), name, " is not implemented for ", self.scalar_type());
}

// amax, amin: the result keeps self's dtype, and out= must have it too.
at::ScalarType same_dtype(const at::Tensor& self, Dtype, Dtype out) {
  reject_complex("amax()/amin()", self);
  TORCH_CHECK(!out || *out == self.scalar_type(), "Expected the dtype for input and out to match, but got ",
              self.scalar_type(), " for input's dtype and ", *out, " for out's dtype.");
  return self.scalar_type();
}

at::ScalarType logical_dtype(const at::Tensor& self, Dtype, Dtype) {
  return self.scalar_type() == at::kByte ? at::kByte : at::kBool;
}

at::ScalarType floating_dtype(const at::Tensor& self, Dtype, Dtype) {
  return at::isIntegralType(self.scalar_type(), true) ? at::typeMetaToScalarType(at::get_default_dtype())
                                                       : self.scalar_type();
}

at::ScalarType statistics_dtype(const at::Tensor& self, Dtype, Dtype) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "std and var only support floating point and complex dtypes");
  return at::toRealValueType(self.scalar_type());
}

at::ScalarType norm_dtype(const at::Tensor& self, Dtype dtype, Dtype) {
  const at::ScalarType in = self.scalar_type();
  TORCH_CHECK(at::isFloatingType(in) || at::isComplexType(in),
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", in);
  return at::toRealValueType(dtype.value_or(in));
}

// ---- the reductions --------------------------------------------------------

aclDataType acl_dtype_of(const at::Tensor& t) { return to_acl_dtype(t.scalar_type()); }

const Reduction& sum_reduction() {
  static const Reduction r{"sum()", summing_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnReduceSum, self, dims, keepdim, acl_dtype_of(out), out);
                           }};
  return r;
}

const Reduction& mean_reduction() {
  static const Reduction r{"mean()", mean_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnMean, self, dims, keepdim, acl_dtype_of(out), out);
                           }};
  return r;
}

const Reduction& amax_reduction() {
  static const Reduction r{"amax()", same_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnAmax, self, dims, keepdim, out);
                           },
                           true};
  return r;
}

const Reduction& amin_reduction() {
  static const Reduction r{"amin()", same_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnAmin, self, dims, keepdim, out);
                           },
                           true};
  return r;
}

const Reduction& all_reduction() {
  static const Reduction r{"all()", logical_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnAll, self, dims, keepdim, out);
                           },
                           false,
                           true};
  return r;
}

const Reduction& any_reduction() {
  static const Reduction r{"any()", logical_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnAny, self, dims, keepdim, out);
                           },
                           false,
                           true};
  return r;
}

const Reduction& logsumexp_reduction() {
  static const Reduction r{"logsumexp()", floating_dtype,
                           [](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
                             NPU_RUN(aclnnLogSumExp, self, dims, keepdim, out);
                           }};
  return r;
}

// ---- sum, mean, amax/amin, all/any, logsumexp -------------------------------

at::Tensor sum_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Dtype dtype) {
  return reduce(sum_reduction(), self, dim, keepdim, dtype);
}
at::Tensor& sum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Dtype dtype, at::Tensor& out) {
  return reduce_out(sum_reduction(), self, dim, keepdim, dtype, out);
}
at::Tensor sum_all(const at::Tensor& self, Dtype dtype) { return sum_dims(self, std::nullopt, false, dtype); }

at::Tensor mean_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Dtype dtype) {
  return reduce(mean_reduction(), self, dim, keepdim, dtype);
}
at::Tensor& mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Dtype dtype, at::Tensor& out) {
  return reduce_out(mean_reduction(), self, dim, keepdim, dtype, out);
}
at::Tensor mean_all(const at::Tensor& self, Dtype dtype) { return mean_dims(self, std::nullopt, false, dtype); }

at::Tensor amax(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  return reduce(amax_reduction(), self, dim, keepdim);
}
at::Tensor& amax_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  return reduce_out(amax_reduction(), self, dim, keepdim, std::nullopt, out);
}
at::Tensor amin(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  return reduce(amin_reduction(), self, dim, keepdim);
}
at::Tensor& amin_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  return reduce_out(amin_reduction(), self, dim, keepdim, std::nullopt, out);
}

// max()/min() over everything: amax/amin with PyTorch's own messages.
Reduction full_extreme(const Reduction& base, const char* name) {
  Reduction r = base;
  r.name = name;
  r.result_dtype = [name](const at::Tensor& self, Dtype, Dtype) {
    reject_complex(name, self);
    return self.scalar_type();
  };
  return r;
}
at::Tensor max_all(const at::Tensor& self) { return reduce(full_extreme(amax_reduction(), "max()"), self, std::nullopt, false); }
at::Tensor min_all(const at::Tensor& self) { return reduce(full_extreme(amin_reduction(), "min()"), self, std::nullopt, false); }
at::Tensor& max_all_out(const at::Tensor& self, at::Tensor& out) {
  return reduce_out(full_extreme(amax_reduction(), "max()"), self, std::nullopt, false, std::nullopt, out);
}
at::Tensor& min_all_out(const at::Tensor& self, at::Tensor& out) {
  return reduce_out(full_extreme(amin_reduction(), "min()"), self, std::nullopt, false, std::nullopt, out);
}

at::Tensor all_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce(all_reduction(), self, dim, keepdim);
}
at::Tensor& all_dims_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, at::Tensor& out) {
  return reduce_out(all_reduction(), self, dim, keepdim, std::nullopt, out);
}
at::Tensor all_all(const at::Tensor& self) { return all_dims(self, std::nullopt, false); }
at::Tensor& all_all_out(const at::Tensor& self, at::Tensor& out) { return all_dims_out(self, std::nullopt, false, out); }
at::Tensor all_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return all_dims(self, at::IntArrayRef(dim), keepdim);
}
at::Tensor& all_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return all_dims_out(self, at::IntArrayRef(dim), keepdim, out);
}

at::Tensor any_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce(any_reduction(), self, dim, keepdim);
}
at::Tensor& any_dims_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, at::Tensor& out) {
  return reduce_out(any_reduction(), self, dim, keepdim, std::nullopt, out);
}
at::Tensor any_all(const at::Tensor& self) { return any_dims(self, std::nullopt, false); }
at::Tensor& any_all_out(const at::Tensor& self, at::Tensor& out) { return any_dims_out(self, std::nullopt, false, out); }
at::Tensor any_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return any_dims(self, at::IntArrayRef(dim), keepdim);
}
at::Tensor& any_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return any_dims_out(self, at::IntArrayRef(dim), keepdim, out);
}

// The aclnn entry takes real input; a complex one composes PyTorch's formula
// from other (pointwise) ops.
at::Tensor logsumexp(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  if (self.is_complex()) return at::native::logsumexp(self, dim, keepdim);
  return reduce(logsumexp_reduction(), self, dim, keepdim);
}
at::Tensor& logsumexp_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  if (self.is_complex()) return at::native::logsumexp_out(self, dim, keepdim, out);
  return reduce_out(logsumexp_reduction(), self, dim, keepdim, std::nullopt, out);
}

// ---- norms -------------------------------------------------------------------

Reduction norm_reduction(const at::Scalar& p) {
  return {"linalg.vector_norm", norm_dtype,
          [p](const at::Tensor& self, at::IntArrayRef dims, bool keepdim, const at::Tensor& out) {
            NPU_RUN(aclnnNorm, self, p, dims, keepdim, out);
          }};
}

// The aclnn norm takes real input; |z| carries a complex input's norm.
at::Tensor norm_input(const at::Tensor& self) { return self.is_complex() ? self.abs() : self; }

// The 2-norm of complex z is that of its (re, im) pairs: no |z| needed.
bool is_complex_2norm(const at::Tensor& self, const at::Scalar& ord) {
  return self.is_complex() && ord.toDouble() == 2.0;
}
std::vector<int64_t> with_pair_dim(const at::Tensor& self, at::OptionalIntArrayRef dim) {
  std::vector<int64_t> dims;
  if (self.dim() == 0) return {0};  // a 0-dim z's dim 0 or -1 is z itself: only the pair dim remains
  if (!dim.has_value() || dim->empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  } else {
    for (const int64_t d : *dim) dims.push_back(at::maybe_wrap_dim(d, self.dim()));
  }
  dims.push_back(self.dim());
  return dims;
}

void check_norm_identity(const at::Tensor& self, const at::Scalar& p, at::OptionalIntArrayRef dim) {
  const double ord = p.toDouble();
  if (self.numel() != 0 || !(ord < 0 || std::isinf(ord))) return;
  const bool all_dims = !dim.has_value() || dim->empty();
  TORCH_CHECK(!all_dims, "linalg.vector_norm cannot compute the ", p, " norm on an empty tensor because the operation "
              "does not have an identity");
  for (const int64_t d : *dim) {
    TORCH_CHECK(self.dim() == 0 || self.size(at::maybe_wrap_dim(d, self.dim())) != 0, "linalg.vector_norm cannot compute the ", p,
                " norm on the dimension ", d, "because this dimension is empty and the operation does not have an "
                "identity");
  }
}

at::Tensor vector_norm(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim, bool keepdim,
                       Dtype dtype) {
  check_norm_identity(self, ord, dim);
  const at::ScalarType result = norm_dtype(self, dtype, std::nullopt);
  if (is_complex_2norm(self, ord)) {
    const at::Tensor pairs = at::view_as_real(self);
    at::Tensor r = reduce(norm_reduction(ord), pairs, with_pair_dim(self, dim), keepdim, result);
    return keepdim ? r.squeeze(-1) : r;
  }
  return reduce(norm_reduction(ord), norm_input(self), dim, keepdim, result);
}
at::Tensor& vector_norm_out(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim, bool keepdim,
                            Dtype dtype, at::Tensor& out) {
  check_norm_identity(self, ord, dim);
  const at::ScalarType result = norm_dtype(self, dtype, std::nullopt);
  if (is_complex_2norm(self, ord)) {
    const at::Tensor r = vector_norm(self, ord, dim, keepdim, dtype);
    write_out(out, r.sizes(), r.scalar_type(), [&](const at::Tensor& o) { o.copy_(r); });
    return out;
  }
  return reduce_out(norm_reduction(ord), norm_input(self), dim, keepdim, result, out);
}

// torch.norm's p=None is 2.
at::Tensor norm_dim_dtype(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim, bool keepdim,
                          at::ScalarType dtype) {
  return vector_norm(self, p.value_or(2), dim, keepdim, dtype);
}
at::Tensor norm_dim(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim, bool keepdim) {
  return vector_norm(self, p.value_or(2), dim, keepdim, std::nullopt);
}
at::Tensor& norm_dtype_out(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim,
                           bool keepdim, at::ScalarType dtype, at::Tensor& out) {
  return vector_norm_out(self, p.value_or(2), dim, keepdim, dtype, out);
}
at::Tensor& norm_out(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim, bool keepdim,
                     at::Tensor& out) {
  return vector_norm_out(self, p.value_or(2), dim, keepdim, std::nullopt, out);
}

// ---- var and std ---------------------------------------------------------------

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
at::Tensor var_or_std(const at::Tensor& self, at::OptionalIntArrayRef dim, const Correction& c, bool keepdim,
                      bool take_sqrt) {
  if (self.is_complex()) {
    const at::Tensor re = var_or_std(at::real(self), dim, c, keepdim, take_sqrt);
    const at::Tensor im = var_or_std(at::imag(self), dim, c, keepdim, take_sqrt);
    if (!take_sqrt) return re.add(im);
    return vector_norm(at::stack({re, im}), 2, at::IntArrayRef(0), false, std::nullopt);
  }
  at::Tensor r = reduce(variance(c, take_sqrt), self, dim, keepdim);
  if (c.fractional) {
    const double scale = fractional_scale(self, r, *c.fractional);
    r.mul_(take_sqrt ? std::sqrt(scale) : scale);
  }
  return r;
}

at::Tensor var_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
               bool keepdim) {
  statistics_dtype(self, std::nullopt, std::nullopt);
  return var_or_std(self, dim, correction_of(correction), keepdim, false);
}

at::Tensor std_dev(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                   bool keepdim) {
  statistics_dtype(self, std::nullopt, std::nullopt);
  return var_or_std(self, dim, correction_of(correction), keepdim, true);
}

at::Tensor& var_out(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                    bool keepdim, at::Tensor& out) {
  const at::Tensor v = var_dims(self, dim, correction, keepdim);
  write_out(out, v.sizes(), v.scalar_type(), [&](const at::Tensor& o) { o.copy_(v); });
  return out;
}

at::Tensor& std_out(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                    bool keepdim, at::Tensor& out) {
  const at::Tensor s = std_dev(self, dim, correction, keepdim);
  write_out(out, s.sizes(), s.scalar_type(), [&](const at::Tensor& o) { o.copy_(s); });
  return out;
}

std::tuple<at::Tensor, at::Tensor> var_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                            const std::optional<at::Scalar>& correction, bool keepdim) {
  return {var_dims(self, dim, correction, keepdim), mean_dims(self, dim, keepdim, std::nullopt)};
}

std::tuple<at::Tensor, at::Tensor> std_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                            const std::optional<at::Scalar>& correction, bool keepdim) {
  return {std_dev(self, dim, correction, keepdim), mean_dims(self, dim, keepdim, std::nullopt)};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sum", TORCH_FN(sum_all));
  m.impl("sum.dim_IntList", TORCH_FN(sum_dims));
  m.impl("sum.IntList_out", TORCH_FN(sum_out));
  m.impl("mean", TORCH_FN(mean_all));
  m.impl("mean.dim", TORCH_FN(mean_dims));
  m.impl("mean.out", TORCH_FN(mean_out));
  m.impl("amax", TORCH_FN(amax));
  m.impl("amax.out", TORCH_FN(amax_out));
  m.impl("amin", TORCH_FN(amin));
  m.impl("amin.out", TORCH_FN(amin_out));
  m.impl("max", TORCH_FN(max_all));
  m.impl("max.unary_out", TORCH_FN(max_all_out));
  m.impl("min", TORCH_FN(min_all));
  m.impl("min.unary_out", TORCH_FN(min_all_out));
  m.impl("all", TORCH_FN(all_all));
  m.impl("all.all_out", TORCH_FN(all_all_out));
  m.impl("all.dim", TORCH_FN(all_dim));
  m.impl("all.out", TORCH_FN(all_dim_out));
  m.impl("all.dims", TORCH_FN(all_dims));
  m.impl("all.dims_out", TORCH_FN(all_dims_out));
  m.impl("any", TORCH_FN(any_all));
  m.impl("any.all_out", TORCH_FN(any_all_out));
  m.impl("any.dim", TORCH_FN(any_dim));
  m.impl("any.out", TORCH_FN(any_dim_out));
  m.impl("any.dims", TORCH_FN(any_dims));
  m.impl("any.dims_out", TORCH_FN(any_dims_out));
  m.impl("logsumexp", TORCH_FN(logsumexp));
  m.impl("logsumexp.out", TORCH_FN(logsumexp_out));
  m.impl("linalg_vector_norm", TORCH_FN(vector_norm));
  m.impl("linalg_vector_norm.out", TORCH_FN(vector_norm_out));
  m.impl("norm.ScalarOpt_dim", TORCH_FN(norm_dim));
  m.impl("norm.ScalarOpt_dim_dtype", TORCH_FN(norm_dim_dtype));
  m.impl("norm.out", TORCH_FN(norm_out));
  m.impl("norm.dtype_out", TORCH_FN(norm_dtype_out));
  m.impl("var.correction", TORCH_FN(var_dims));
  m.impl("var.correction_out", TORCH_FN(var_out));
  m.impl("std.correction", TORCH_FN(std_dev));
  m.impl("std.correction_out", TORCH_FN(std_out));
  m.impl("var_mean.correction", TORCH_FN(var_mean));
  m.impl("std_mean.correction", TORCH_FN(std_mean));
}

}  // namespace npu::ops
