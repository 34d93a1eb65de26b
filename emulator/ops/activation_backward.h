// Task makers of the activation-backward family (ops/table/activation_backward.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/activation/activation_grad.h"

namespace npu::emu {

// out = self <= threshold ? value : self (the forward beside its backward).
TaskBody threshold_task(const aclTensor* self, const aclScalar* threshold, const aclScalar* value, aclTensor* out);

// out = self <= threshold ? 0 : gradOutput (relu's backward with threshold 0).
TaskBody threshold_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclScalar* threshold,
                                 aclTensor* out);

// out = the activation's gradient from gradOutput and its second operand
// (sigmoid's / tanh's output, silu's input).
TaskBody activation_grad_task(kernels::ActivationGrad fn, const aclTensor* gradOutput, const aclTensor* operand,
                              aclTensor* out);

// gelu's gradient; approximate "none" or "tanh".
TaskBody gelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, const char* approximate,
                            aclTensor* gradInput);

}  // namespace npu::emu
