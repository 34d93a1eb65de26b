// The factory family's task makers: arange, linspace, eye.
#include "emulator/ops/factory.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_launch.h"
#include "kernels/factory/factories.h"

namespace npu::emu {

namespace {

// The range kernels (kernels/factory/factories.h) fill integer and floating outputs
// (not bool, complex or the wide unsigned types). Checked here, before
// anything is launched, so that a bad dtype= fails the call that passed it
// and not a later synchronize; worded "<op>: unsupported dtype <dtype>",
// which callers report as PyTorch's NotImplementedError.
void require_range_dtype(const char* op, model::DType dtype) {
  using model::DType;
  switch (dtype) {
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
      return;
    default:
      fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": unsupported dtype " + model::dtype_name(dtype));
  }
}

}  // namespace

TaskBody arange_task(const aclScalar* start, const aclScalar* end, const aclScalar* step,
                     aclTensor* out) {
  require_scalar(start, "start");
  require_scalar(end, "end");
  require_scalar(step, "step");
  require_tensor(out, "out");
  require_range_dtype("arange", out->dtype);
  const int64_t n = kernels::arange_length(start->value(), end->value(), step->value(), out->dtype);
  require_shape(out, {n}, "out");
  return [o = out->view(), s = start->value(), st = step->value()] { kernels::arange(o, s, st); };
}

TaskBody linspace_task(const aclScalar* start, const aclScalar* end, int64_t steps, aclTensor* out) {
  require_scalar(start, "start");
  require_scalar(end, "end");
  require_tensor(out, "out");
  require_range_dtype("linspace", out->dtype);
  if (steps < 0) fail(ACLNN_ERR_PARAM_INVALID, "steps must be non-negative, got " + std::to_string(steps));
  require_shape(out, {steps}, "out");
  return [o = out->view(), s = start->value(), e = end->value()] { kernels::linspace(o, s, e); };
}

TaskBody eye_task(int64_t n, int64_t m, aclTensor* out) {
  require_tensor(out, "out");
  if (n < 0 || m < 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "n and m must be non-negative, got " + std::to_string(n) + ", " +
                                      std::to_string(m));
  }
  require_shape(out, {n, m}, "out");
  return [o = out->view()] { kernels::eye(o); };
}

}  // namespace npu::emu
