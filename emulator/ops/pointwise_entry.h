// What the aclnn entries of the pointwise families share: turning their
// tensor/scalar parameters into kernel operands (with aclnn's null checks)
// and checking the output against the result the kernel will produce.
#pragma once

#include "acl/acl_base.h"
#include "device_model/dtype.h"
#include "emulator/acl_objects.h"
#include "kernels/pointwise/operand.h"

namespace npu::emu {

// One operand parameter of an aclnn entry: an aclTensor or an aclScalar,
// required or optional. Resolved inside prepare_op, so a null required
// parameter is reported as ACLNN_ERR_PARAM_NULLPTR naming it.
class OperandArg {
 public:
  OperandArg(const aclTensor* tensor, const char* name, bool optional = false)
      : tensor_(tensor), name_(name), optional_(optional) {}
  OperandArg(const aclScalar* scalar, const char* name, bool optional = false)
      : scalar_(scalar), name_(name), optional_(optional) {}

  // The operand (absent when optional and null). Tensors are described, not
  // read: their data is touched only when the task runs. Inline for a
  // tensor (every operand of every pointwise launch): aclTensor::view()'s
  // checks, then the operand's view built in place.
  kernels::Operand resolve() const {
    if (tensor_ == nullptr) return resolve_scalar();
    tensor_->require_base_format();
    return kernels::Operand(tensor_->first_element(), tensor_->dtype, tensor_->view_dims, tensor_->strides);
  }

  // The tensor parameter (null for a scalar or an absent operand) and the
  // same operand with that tensor replaced by `t` (a FormatScope substitute).
  const aclTensor* tensor() const { return tensor_; }
  const char* name() const { return name_; }
  OperandArg with_tensor(const aclTensor* t) const {
    OperandArg copy = *this;
    if (tensor_ != nullptr) copy.tensor_ = t;
    return copy;
  }

 private:
  // resolve() for a scalar or a null parameter.
  kernels::Operand resolve_scalar() const;

  const aclTensor* tensor_ = nullptr;
  const aclScalar* scalar_ = nullptr;
  const char* name_;
  bool optional_;
};

namespace detail {
// check_pointwise_out's failure: the checks one by one, each with its message.
[[noreturn]] void pointwise_out_failed(const aclTensor* out, const kernels::Shape& shape, model::DType result);
}  // namespace detail

// Checks that `out` exists, has `shape`, and can receive a `result`-typed
// value (torch.can_cast); fails with an aclnn error code otherwise. Inline
// (every pointwise launch): the messages are built out of line.
inline void check_pointwise_out(const aclTensor* out, const kernels::Shape& shape, model::DType result) {
  if (out == nullptr || out->view_dims != shape || !model::can_cast(result, out->dtype)) {
    detail::pointwise_out_failed(out, shape, result);
  }
}

}  // namespace npu::emu
