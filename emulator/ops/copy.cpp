// The copy family's task makers: strided copy with conversion, fills.
#include "emulator/ops/copy.h"

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "kernels/copy/copy.h"

namespace npu::emu {

TaskBody inplace_copy_task(aclTensor* selfRef, const aclTensor* src) {
  require_tensor(selfRef, "selfRef");
  require_tensor(src, "src");
  kernels::broadcast_to(src->view(), selfRef->view_dims);  // validates now, not at run time
  return [d = selfRef->view(), s = src->view()] { kernels::copy(d, s); };
}

TaskBody fill_scalar_task(aclTensor* selfRef, const aclScalar* value) {
  require_tensor(selfRef, "selfRef");
  require_scalar(value, "value");
  return [d = selfRef->view(), v = value->value()] { kernels::fill(d, v); };
}

TaskBody fill_tensor_task(aclTensor* selfRef, const aclTensor* value) {
  require_tensor(selfRef, "selfRef");
  require_tensor(value, "value");
  kernels::TensorView v = value->view();
  if (v.numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "value must hold exactly one element, has shape " + kernels::shape_str(v.sizes));
  }
  // As a 0-dim view copy broadcasts it; the element itself is read when the task runs.
  v.sizes.clear();
  v.strides.clear();
  return [d = selfRef->view(), v] { kernels::copy(d, v); };
}

TaskBody zero_task(aclTensor* selfRef) {
  require_tensor(selfRef, "selfRef");
  return [d = selfRef->view()] { kernels::fill(d, kernels::Scalar::from_int(0)); };
}

TaskBody one_task(aclTensor* selfRef) {
  require_tensor(selfRef, "selfRef");
  return [d = selfRef->view()] { kernels::fill(d, kernels::Scalar::from_int(1)); };
}

}  // namespace npu::emu
