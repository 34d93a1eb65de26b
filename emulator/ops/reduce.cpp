// The reduction and scan family's task makers: arguments are checked on the
// host; kernels (kernels/reduce/reduce.h, kernels/reduce/scan.h) run when the
// stream reaches the task.
#include "emulator/ops/reduce.h"

#include <cmath>
#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_plan.h"
#include "kernels/reduce/scan.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kn::DimMask;
using kn::TensorView;

// What an op demands of its operands beyond the reduced shape.
struct Rules {
  bool ordered = false;         // no complex input (max, min, norms, statistics)
  bool needs_elements = false;  // no identity: reduced dims must be non-empty
  bool floating_out = false;    // floating result (norm, var, logsumexp)
  bool mean_out = false;        // floating or complex result
  std::optional<aclDataType> dtype;  // a dtype= parameter, which must match out
};

Rules ordered(bool needs_elements, bool floating_out) { return {true, needs_elements, floating_out, false, {}}; }

using Kernel = std::function<void(const TensorView& out, const TensorView& in, const DimMask& dims)>;

DimMask check_reduction(const char* name, const aclTensor* self, const std::vector<int64_t>& dims, bool keepdim,
                        const aclTensor* out, const Rules& rules) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  const DimMask mask = kn::dim_mask(dims, static_cast<int64_t>(self->view_dims.size()));
  require_shape(out, kn::reduced_shape(self->view_dims, mask, keepdim), "out");
  if (rules.ordered) reject_complex(self, "self");
  if (rules.floating_out) require_floating(out, "out");
  if (rules.mean_out) {
    require_dtype(out, "out", "a floating point or complex tensor",
                  [](kn::DType d) { return model::is_floating_point(d) || model::is_complex(d); });
  }
  if (rules.dtype) require_dtype_param(*rules.dtype, out);
  if (rules.needs_elements) kn::require_nonempty_reduction(name, self->view(), mask);
  return mask;
}

// The task of every dim-list reduction.
std::function<void()> reduce_with(const char* name, const aclTensor* self, const std::vector<int64_t>& dims,
                                  bool keepdim, const aclTensor* out, const Rules& rules, Kernel kernel) {
  const DimMask mask = check_reduction(name, self, dims, keepdim, out, rules);
  return [in = self->view(), o = out->view(), mask, kernel = std::move(kernel)] { kernel(o, in, mask); };
}

}  // namespace

std::function<void()> reduce_task(ReduceFn fn, const aclTensor* self, const aclIntArray* dim, bool keepdim,
                                  std::optional<aclDataType> dtype, aclTensor* out) {
  const std::vector<int64_t> dims = int_values(dim);
  switch (fn) {
    case ReduceFn::Sum: return reduce_with("sum", self, dims, keepdim, out, {false, false, false, false, dtype}, kn::reduce_sum);
    case ReduceFn::Mean: return reduce_with("mean", self, dims, keepdim, out, {false, false, false, true, dtype}, kn::reduce_mean);
    case ReduceFn::Amax: return reduce_with("amax", self, dims, keepdim, out, ordered(true, false), kn::reduce_amax);
    case ReduceFn::Amin: return reduce_with("amin", self, dims, keepdim, out, ordered(true, false), kn::reduce_amin);
    case ReduceFn::All: return reduce_with("all", self, dims, keepdim, out, {}, kn::reduce_all);
    case ReduceFn::Any: return reduce_with("any", self, dims, keepdim, out, {}, kn::reduce_any);
    case ReduceFn::LogSumExp:
      return reduce_with("logsumexp", self, dims, keepdim, out, ordered(false, true), kn::reduce_logsumexp);
  }
  fail(ACLNN_ERR_PARAM_INVALID, "unknown reduction");
}

std::function<void()> prod_all_task(const aclTensor* self, aclDataType dtype, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  if (v[1].numel() != 1 || v[1].dim() > 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "out must have shape [] or [1], got " + kn::shape_str(v[1].sizes));
  }
  require_dtype_param(dtype, out);
  // CANN's out may be [1]: write it through a 0-dim view of the same element.
  return task([in = v[0], o = TensorView{v[1].data, v[1].dtype, {}, {}}] {
    kn::reduce_prod(o, in, kn::dim_mask({}, in.dim()));
  });
}

std::function<void()> prod_dim_task(const aclTensor* self, int64_t dim, bool keepdim, aclDataType dtype,
                                    aclTensor* out) {
  return reduce_with("prod", self, {dim}, keepdim, out, {false, false, false, false, dtype}, kn::reduce_prod);
}

std::function<void()> arg_task(bool is_max, const aclTensor* self, int64_t dim, bool keepdim, aclTensor* values,
                               aclTensor* indices) {
  const bool with_values = values != nullptr;
  const char* name = with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin");
  require_tensor(indices, "indices");
  check_reduction(name, self, {dim}, keepdim, indices, ordered(true, false));
  require_dtype(indices, "indices", "an integer tensor", [](kn::DType d) { return model::is_integral(d); });
  std::optional<TensorView> v;
  if (with_values) {
    require_shape(values, indices->view_dims, "out");
    v = values->view();
  }
  return [in = self->view(), v, ix = indices->view(), is_max, dim] {
    kn::reduce_arg(is_max, v ? &*v : nullptr, &ix, in, dim);
  };
}

std::function<void()> var_task(const aclTensor* self, const aclIntArray* dim, double correction, bool keepdim,
                               bool take_sqrt, aclTensor* out) {
  return reduce_with(take_sqrt ? "std" : "var", self, int_values(dim), keepdim, out, ordered(false, true),
                     [correction, take_sqrt](const TensorView& o, const TensorView& in, const DimMask& m) {
                       kn::reduce_var(o, in, m, correction, take_sqrt);
                     });
}

std::function<void()> norm_task(const aclTensor* self, const aclScalar* p, const aclIntArray* dim, bool keepdim,
                                aclTensor* out) {
  const double order = p != nullptr ? p->value().to<double>() : 2.0;
  return reduce_with("norm", self, int_values(dim), keepdim, out, ordered(std::isinf(order), true),
                     [order](const TensorView& o, const TensorView& in, const DimMask& m) {
                       kn::reduce_norm(o, in, m, order);
                     });
}

std::function<void()> scan_task(bool prod, const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_shape(out, self->view_dims, "out");
  require_dtype_param(dtype, out);
  kn::wrap_dim(dim, static_cast<int64_t>(self->view_dims.size()));
  return [in = self->view(), o = out->view(), dim, prod] {
    prod ? kn::cumprod(o, in, dim) : kn::cumsum(o, in, dim);
  };
}

std::function<void()> logcumsumexp_task(const aclTensor* self, int64_t dim, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_shape(out, self->view_dims, "out");
  if (!model::is_floating_point(self->dtype) || out->dtype != self->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("self must be floating and out of its dtype, got ") +
                                      model::dtype_name(self->dtype) + " and " + model::dtype_name(out->dtype));
  }
  kn::wrap_dim(dim, static_cast<int64_t>(self->view_dims.size()));
  return [in = self->view(), o = out->view(), dim] { kn::logcumsumexp(o, in, dim); };
}

std::function<void()> cum_extreme_task(bool is_max, const aclTensor* self, int64_t dim, aclTensor* valuesOut,
                                       aclTensor* indicesOut) {
  require_tensor(self, "self");
  require_tensor(valuesOut, "valuesOut");
  require_tensor(indicesOut, "indicesOut");
  require_shape(valuesOut, self->view_dims, "valuesOut");
  require_shape(indicesOut, self->view_dims, "indicesOut");
  if (valuesOut->dtype != self->dtype || indicesOut->dtype != model::DType::Int64 || model::is_complex(self->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("self must be real, valuesOut of its dtype and indicesOut int64; got ") +
                                      model::dtype_name(self->dtype) + ", " + model::dtype_name(valuesOut->dtype) +
                                      ", " + model::dtype_name(indicesOut->dtype));
  }
  if (!self->view_dims.empty()) kn::wrap_dim(dim, static_cast<int64_t>(self->view_dims.size()));
  return [in = self->view(), v = valuesOut->view(), i = indicesOut->view(), dim, is_max] {
    kn::cum_extreme(is_max, v, i, in, dim);
  };
}

std::function<void()> scan_task(bool prod, const aclTensor* self, const aclScalar* dim, aclDataType dtype,
                                aclTensor* out) {
  return scan_task(prod, self, int_scalar(dim, "dim"), dtype, out);
}

}  // namespace npu::emu
