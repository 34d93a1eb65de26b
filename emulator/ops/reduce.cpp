// aclnn entries of the reduction and scan family: arguments are checked at
// GetWorkspaceSize time; kernels (kernels/reduce/reduce.h, kernels/reduce/scan.h) run when
// the stream reaches the task.
#include <cmath>
#include <functional>
#include <limits>

#include "acl/aclnn_reduce.h"
#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_plan.h"
#include "kernels/reduce/scan.h"

using npu::emu::prepare_op;
using npu::kernels::DimMask;
using npu::kernels::TensorView;

namespace {

namespace kn = npu::kernels;
namespace emu = npu::emu;

// What an op demands of its operands beyond the reduced shape.
struct Rules {
  bool ordered = false;         // no complex input (max, min, norms, statistics)
  bool needs_elements = false;  // no identity: reduced dims must be non-empty
  bool floating_out = false;    // floating result (norm, var, logsumexp)
  bool mean_out = false;        // floating or complex result
  std::optional<aclDataType> dtype;  // a dtype= parameter, which must match out
};

Rules ordered(bool needs_elements, bool floating_out) { return {true, needs_elements, floating_out, false, {}}; }
Rules with_dtype(aclDataType dtype, bool mean = false) { return {false, false, false, mean, dtype}; }

using Kernel = std::function<void(const TensorView& out, const TensorView& in, const DimMask& dims)>;

DimMask check_reduction(const char* name, const aclTensor* self, const std::vector<int64_t>& dims, bool keepdim,
                        const aclTensor* out, const Rules& rules) {
  emu::require_tensor(self, "self");
  emu::require_tensor(out, "out");
  const DimMask mask = kn::dim_mask(dims, static_cast<int64_t>(self->view_dims.size()));
  emu::require_shape(out, kn::reduced_shape(self->view_dims, mask, keepdim), "out");
  if (rules.ordered) emu::reject_complex(self, "self");
  if (rules.floating_out) emu::require_floating(out, "out");
  if (rules.mean_out) {
    emu::require_dtype(out, "out", "a floating point or complex tensor", [](kn::DType d) {
      return npu::model::is_floating_point(d) || npu::model::is_complex(d);
    });
  }
  if (rules.dtype) emu::require_dtype_param(*rules.dtype, out);
  if (rules.needs_elements) kn::require_nonempty_reduction(name, self->view(), mask);
  return mask;
}

// The shape of every dim-list reduction entry.
aclnnStatus reduce_entry(const char* name, const aclTensor* self, const std::vector<int64_t>& dims, bool keepdim,
                         const aclTensor* out, const Rules& rules, uint64_t* ws, aclOpExecutor** ex,
                         const Kernel& kernel) {
  return prepare_op(name, ws, ex, [&] {
    const DimMask mask = check_reduction(name, self, dims, keepdim, out, rules);
    return std::function<void()>([in = self->view(), o = out->view(), mask, kernel] { kernel(o, in, mask); });
  });
}

// Max / min along one dim with indices, and values when with_values.
aclnnStatus arg_entry(const char* name, bool is_max, bool with_values, const aclTensor* self, int64_t dim,
                      bool keepdim, const aclTensor* values, const aclTensor* indices, uint64_t* ws,
                      aclOpExecutor** ex) {
  return prepare_op(name, ws, ex, [&] {
    if (with_values) emu::require_tensor(values, "out");
    emu::require_tensor(indices, "indices");
    check_reduction(name, self, {dim}, keepdim, indices, ordered(true, false));
    emu::require_dtype(indices, "indices", "an integer tensor", [](kn::DType d) { return npu::model::is_integral(d); });
    std::optional<TensorView> v;
    if (values != nullptr) {
      emu::require_shape(values, indices->view_dims, "out");
      v = values->view();
    }
    return std::function<void()>([in = self->view(), v, ix = indices->view(), is_max, dim] {
      kn::reduce_arg(is_max, v ? &*v : nullptr, &ix, in, dim);
    });
  });
}

aclnnStatus var_entry(const char* name, const aclTensor* self, const aclIntArray* dim, double correction,
                      bool keepdim, const aclTensor* out, bool take_sqrt, uint64_t* ws, aclOpExecutor** ex) {
  return reduce_entry(name, self, emu::int_values(dim), keepdim, out, ordered(false, true), ws, ex,
                      [correction, take_sqrt](const TensorView& o, const TensorView& in, const DimMask& m) {
                        kn::reduce_var(o, in, m, correction, take_sqrt);
                      });
}

aclnnStatus scan_entry(const char* name, const aclTensor* self, int64_t dim, aclDataType dtype, const aclTensor* out,
                       bool prod, uint64_t* ws, aclOpExecutor** ex) {
  return prepare_op(name, ws, ex, [&] {
    emu::require_tensor(self, "self");
    emu::require_tensor(out, "out");
    emu::require_shape(out, self->view_dims, "out");
    emu::require_dtype_param(dtype, out);
    kn::wrap_dim(dim, static_cast<int64_t>(self->view_dims.size()));
    return std::function<void()>([in = self->view(), o = out->view(), dim, prod] {
      prod ? kn::cumprod(o, in, dim) : kn::cumsum(o, in, dim);
    });
  });
}

}  // namespace

extern "C" {

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                           aclDataType dtype, aclTensor* out, uint64_t* workspaceSize,
                                           aclOpExecutor** executor) {
  return reduce_entry("aclnnReduceSum", self, emu::int_values(dim), keepDim, out, with_dtype(dtype), workspaceSize,
                      executor, kn::reduce_sum);
}
NPU_EMU_DEFINE_LAUNCH(aclnnReduceSum)

aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnMean", self, emu::int_values(dim), keepDim, out, with_dtype(dtype, true), workspaceSize,
                      executor, kn::reduce_mean);
}
NPU_EMU_DEFINE_LAUNCH(aclnnMean)

aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor* self, aclDataType dtype, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnProd", workspaceSize, executor, [&] {
    const auto v = emu::require_views<2>({{{self, "self"}, {out, "out"}}});
    if (v[1].numel() != 1 || v[1].dim() > 1) {
      emu::fail(ACLNN_ERR_PARAM_INVALID, "out must have shape [] or [1], got " + kn::shape_str(v[1].sizes));
    }
    emu::require_dtype_param(dtype, out);
    // CANN's out may be [1]: write it through a 0-dim view of the same element.
    return emu::task([in = v[0], o = TensorView{v[1].data, v[1].dtype, {}, {}}] {
      kn::reduce_prod(o, in, kn::dim_mask({}, in.dim()));
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnProd)

aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclDataType dtype,
                                         aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnProdDim", self, {dim}, keepDim, out, with_dtype(dtype), workspaceSize, executor,
                      kn::reduce_prod);
}
NPU_EMU_DEFINE_LAUNCH(aclnnProdDim)

aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnAmax", self, emu::int_values(dim), keepDim, out, ordered(true, false), workspaceSize, executor,
                      kn::reduce_amax);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAmax)

aclnnStatus aclnnAminGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnAmin", self, emu::int_values(dim), keepDim, out, ordered(true, false), workspaceSize, executor,
                      kn::reduce_amin);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAmin)

aclnnStatus aclnnMaxDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                        aclTensor* indices, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return arg_entry("aclnnMaxDim", true, true, self, dim, keepdim, out, indices, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnMaxDim)

aclnnStatus aclnnMinDimGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                        aclTensor* indices, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return arg_entry("aclnnMinDim", false, true, self, dim, keepdim, out, indices, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnMinDim)

aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return arg_entry("aclnnArgMax", true, false, self, dim, keepdim, nullptr, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnArgMax)

aclnnStatus aclnnArgMinGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return arg_entry("aclnnArgMin", false, false, self, dim, keepdim, nullptr, out, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnArgMin)

aclnnStatus aclnnVarGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool unbiased, bool keepdim,
                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return var_entry("aclnnVar", self, dim, unbiased ? 1.0 : 0.0, keepdim, out, false, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnVar)

aclnnStatus aclnnVarCorrectionGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, int64_t correction,
                                               bool keepdim, aclTensor* out, uint64_t* workspaceSize,
                                               aclOpExecutor** executor) {
  return var_entry("aclnnVarCorrection", self, dim, static_cast<double>(correction), keepdim, out, false, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnVarCorrection)

aclnnStatus aclnnStdGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim,
                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return var_entry("aclnnStd", self, dim, static_cast<double>(correction), keepdim, out, true, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnStd)

aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor* self, const aclScalar* pScalar, const aclIntArray* dim,
                                      bool keepdim, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  const double p = pScalar != nullptr ? pScalar->value().to<double>() : 2.0;
  return reduce_entry("aclnnNorm", self, emu::int_values(dim), keepdim, out, ordered(std::isinf(p), true),
                      workspaceSize, executor,
                      [p](const TensorView& o, const TensorView& in, const DimMask& m) { kn::reduce_norm(o, in, m, p); });
}
NPU_EMU_DEFINE_LAUNCH(aclnnNorm)

aclnnStatus aclnnAllGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnAll", self, emu::int_values(dim), keepdim, out, {}, workspaceSize, executor,
                      kn::reduce_all);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAll)

aclnnStatus aclnnAnyGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnAny", self, emu::int_values(dim), keepdim, out, {}, workspaceSize, executor,
                      kn::reduce_any);
}
NPU_EMU_DEFINE_LAUNCH(aclnnAny)

aclnnStatus aclnnLogSumExpGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                           aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return reduce_entry("aclnnLogSumExp", self, emu::int_values(dim), keepDim, out, ordered(false, true), workspaceSize,
                      executor, kn::reduce_logsumexp);
}
NPU_EMU_DEFINE_LAUNCH(aclnnLogSumExp)

aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return scan_entry("aclnnCumsum", self, dim, dtype, out, false, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnCumsum)

aclnnStatus aclnnCumprodGetWorkspaceSize(const aclTensor* input, const aclScalar* dim, aclDataType dtype,
                                         aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  int64_t d = 0;
  const aclnnStatus status = npu::emu::guarded("aclnnCumprod", [&] { d = npu::emu::int_scalar(dim, "dim"); });
  if (status != ACLNN_SUCCESS) return status;
  return scan_entry("aclnnCumprod", input, d, dtype, out, true, workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnCumprod)

}  // extern "C"
