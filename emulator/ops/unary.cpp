// The unary pointwise family's task makers, and aclnnCast's. Every maker
// validates dtypes and shapes on the host; the kernel reads device memory
// only when the task runs on the stream.
#include "emulator/ops/unary.h"

#include <cfloat>
#include <optional>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "emulator/ops/pointwise_entry.h"
#include "kernels/copy/copy.h"

namespace npu::emu {

std::function<void()> unary_task(UnaryFn op, const aclTensor* self, aclTensor* out,
                                 const kernels::UnaryParams& params) {
  kernels::Operand x = OperandArg(self, "self").resolve();  // not const: moved into the task
  require_tensor(out, "out");
  check_pointwise_out(out, x.sizes(), kernels::unary_result_dtype(op, x.dtype()));
  return [op, params, in = std::move(x).tensor(), o = out->view()] { kernels::unary(op, o, in, params); };
}

std::function<void()> gelu_v2_task(const aclTensor* x, int64_t approximate, aclTensor* y) {
  if (approximate != 0 && approximate != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "approximate must be 0 (none) or 1 (tanh), got " + std::to_string(approximate));
  }
  return unary_task(approximate == 1 ? UnaryFn::GeluTanh : UnaryFn::Gelu, x, y);
}

std::function<void()> round_decimals_task(const aclTensor* self, int64_t decimals, aclTensor* out) {
  kernels::UnaryParams params;
  params.decimals = decimals;
  return unary_task(UnaryFn::RoundDecimals, self, out, params);
}

std::function<void()> polygamma_task(int64_t n, const aclTensor* self, aclTensor* out) {
  if (n < 0) fail(ACLNN_ERR_PARAM_INVALID, "n must be >= 0, got " + std::to_string(n));
  kernels::UnaryParams params;
  params.n = n;
  return unary_task(UnaryFn::Polygamma, self, out, params);
}

namespace {

// A float parameter of +-FLT_MAX stands for "the dtype's extreme" (nullopt),
// so float64 outputs get DBL_MAX as PyTorch's default does.
std::optional<double> nan_to_num_bound(float v) {
  if (v == FLT_MAX || v == -FLT_MAX) return std::nullopt;
  return v;
}

}  // namespace

std::function<void()> nan_to_num_task(const aclTensor* self, float nan, float posinf, float neginf, aclTensor* out) {
  kernels::UnaryParams params;
  params.nan = nan;
  params.posinf = nan_to_num_bound(posinf);
  params.neginf = nan_to_num_bound(neginf);
  return unary_task(UnaryFn::NanToNum, self, out, params);
}

std::function<void()> cast_task(const aclTensor* self, aclDataType dtype, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_shape(out, self->view_dims, "out");
  const auto target = model::dtype_from_acl(dtype);
  if (!target || *target != out->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID,
         "dtype " + std::to_string(dtype) + " must be out's dtype " + model::dtype_name(out->dtype));
  }
  return [in = self->view(), o = out->view()] { kernels::copy(o, in); };
}

}  // namespace npu::emu
