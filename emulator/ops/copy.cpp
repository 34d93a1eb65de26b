// aclnn entries that copy and fill device tensors.
#include "acl/aclnn_copy.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/copy/copy.h"

using npu::emu::prepare_op;

extern "C" {

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceCopy", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    npu::emu::require_tensor(src, "src");
    npu::kernels::broadcast_to(src->view(), selfRef->view_dims);  // validates now, not at run time
    return std::function<void()>(
        [d = selfRef->view(), s = src->view()] { npu::kernels::copy(d, s); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceCopy)

aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclScalar* value,
                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceFillScalar", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    npu::emu::require_scalar(value, "value");
    return std::function<void()>(
        [d = selfRef->view(), v = value->value()] { npu::kernels::fill(d, v); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceFillScalar)

aclnnStatus aclnnInplaceFillTensorGetWorkspaceSize(aclTensor* selfRef, const aclTensor* value,
                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceFillTensor", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    npu::emu::require_tensor(value, "value");
    npu::kernels::TensorView v = value->view();
    if (v.numel() != 1) {
      npu::emu::fail(ACLNN_ERR_PARAM_INVALID, "value must hold exactly one element, has shape " +
                                                  npu::kernels::shape_str(v.sizes));
    }
    // As a 0-dim view copy broadcasts it; the element itself is read when the task runs.
    v.sizes.clear();
    v.strides.clear();
    return std::function<void()>([d = selfRef->view(), v] { npu::kernels::copy(d, v); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceFillTensor)

aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceZero", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    return std::function<void()>(
        [d = selfRef->view()] { npu::kernels::fill(d, npu::kernels::Scalar::from_int(0)); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceZero)

}  // extern "C"
