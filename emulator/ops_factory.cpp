// aclnn entries that create values: arange, linspace, eye.
#include "acl/aclnn_factory.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/factories.h"

using npu::emu::fail;
using npu::emu::prepare_op;

extern "C" {

aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar* start, const aclScalar* end, const aclScalar* step,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnArange", workspaceSize, executor, [&] {
    npu::emu::require_scalar(start, "start");
    npu::emu::require_scalar(end, "end");
    npu::emu::require_scalar(step, "step");
    npu::emu::require_tensor(out, "out");
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
