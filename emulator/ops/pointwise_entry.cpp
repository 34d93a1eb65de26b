#include "emulator/ops/pointwise_entry.h"

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"

namespace npu::emu {

kernels::Operand OperandArg::resolve_scalar() const {
  if (scalar_ != nullptr) return kernels::Operand(scalar_->value());
  if (!optional_) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name_) + " must not be null");
  return kernels::Operand();
}

void detail::pointwise_out_failed(const aclTensor* out, const kernels::Shape& shape, model::DType result) {
  require_tensor(out, "out");
  require_shape(out, shape, "out");
  fail(ACLNN_ERR_PARAM_INVALID, std::string("result type ") + model::dtype_name(result) +
                                    " can't be cast to the desired output type " + model::dtype_name(out->dtype));
}

}  // namespace npu::emu
