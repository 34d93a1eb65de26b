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

// The same with the activation's scalar arguments (kernels::ActivationParams
// a and b; null where the activation takes fewer).
TaskBody activation_grad_task(kernels::ActivationGrad fn, const aclTensor* gradOutput, const aclTensor* operand,
                              const aclScalar* a, const aclScalar* b, aclTensor* out);

// elu's gradient from its input (isResult false) or its result.
TaskBody elu_backward_task(const aclTensor* gradOutput, const aclScalar* alpha, const aclScalar* scale,
                           const aclScalar* inputScale, bool isResult, const aclTensor* selfOrResult,
                           aclTensor* gradInput);

// log_sigmoid's gradient from its input and aclnnLogSigmoidForward's buffer.
TaskBody log_sigmoid_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* buffer,
                                   aclTensor* gradInput);

// glu's gradient; out has self's shape.
TaskBody glu_backward_task(const aclTensor* gradOut, const aclTensor* self, int64_t dim, aclTensor* out);

// prelu's gradients, both at the broadcast shape of self and weight.
TaskBody prelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* weight,
                             aclTensor* gradInput, aclTensor* gradWeight);

// logit's gradient dy / (x (1 - x)) with eps (< 0: no clamping).
TaskBody logit_grad_task(const aclTensor* x, const aclTensor* dy, double eps, aclTensor* out);

}  // namespace npu::emu
