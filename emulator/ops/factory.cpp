// aclnn entries that create values: arange, linspace, eye.
#include <string>

#include "acl/aclnn_factory.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/factory/factories.h"

using npu::emu::fail;
using npu::emu::prepare_op;

namespace {

// The range kernels (kernels/factory/factories.h) fill integer and floating outputs
// (not bool, complex or the wide unsigned types). Checked here, before
// anything is launched, so that a bad dtype= fails the call that passed it
// and not a later synchronize; worded "<op>: unsupported dtype <dtype>",
// which callers report as PyTorch's NotImplementedError.
void require_range_dtype(const char* op, npu::model::DType dtype) {
  using npu::model::DType;
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
      fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": unsupported dtype " + npu::model::dtype_name(dtype));
  }
}

}  // namespace

extern "C" {

aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar* start, const aclScalar* end, const aclScalar* step,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnArange", workspaceSize, executor, [&] {
    npu::emu::require_scalar(start, "start");
    npu::emu::require_scalar(end, "end");
    npu::emu::require_scalar(step, "step");
    npu::emu::require_tensor(out, "out");
    require_range_dtype("arange", out->dtype);
    const int64_t n = npu::kernels::arange_length(start->value(), end->value(), step->value(), out->dtype);
    npu::emu::require_shape(out, {n}, "out");
    return std::function<void()>([o = out->view(), s = start->value(), st = step->value()] {
      npu::kernels::arange(o, s, st);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnArange)

aclnnStatus aclnnLinspaceGetWorkspaceSize(const aclScalar* start, const aclScalar* end, int64_t steps,
                                          aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnLinspace", workspaceSize, executor, [&] {
    npu::emu::require_scalar(start, "start");
    npu::emu::require_scalar(end, "end");
    npu::emu::require_tensor(out, "out");
    require_range_dtype("linspace", out->dtype);
    if (steps < 0) fail(ACLNN_ERR_PARAM_INVALID, "steps must be non-negative, got " + std::to_string(steps));
    npu::emu::require_shape(out, {steps}, "out");
    return std::function<void()>([o = out->view(), s = start->value(), e = end->value()] {
      npu::kernels::linspace(o, s, e);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnLinspace)

aclnnStatus aclnnEyeGetWorkspaceSize(int64_t n, int64_t m, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return prepare_op("aclnnEye", workspaceSize, executor, [&] {
    npu::emu::require_tensor(out, "out");
    if (n < 0 || m < 0) {
      fail(ACLNN_ERR_PARAM_INVALID, "n and m must be non-negative, got " + std::to_string(n) + ", " +
                                        std::to_string(m));
    }
    npu::emu::require_shape(out, {n, m}, "out");
    return std::function<void()>([o = out->view()] { npu::kernels::eye(o); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnEye)

}  // extern "C"
