// Task makers of the forward activations (ops/table/activation.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/activation/activation.h"

namespace npu::emu {

// out = fn(self) with up to three scalar arguments (null where the
// activation takes fewer; see kernels::ActivationParams for which is which).
TaskBody activation_task(kernels::Activation fn, const aclTensor* self, const aclScalar* a, const aclScalar* b,
                         const aclScalar* c, aclTensor* out);

// out = logit(input) with eps (< 0: no clamping).
TaskBody logit_task(const aclTensor* input, double eps, aclTensor* out);

// out = log(sigmoid(self)), buffer = exp(-|self|).
TaskBody log_sigmoid_forward_task(const aclTensor* self, aclTensor* out, aclTensor* buffer);

// out = a * sigmoid(b) over self's halves along dim.
TaskBody glu_task(const aclTensor* self, int64_t dim, aclTensor* out);

// out = self > 0 ? self : weight * self.
TaskBody prelu_task(const aclTensor* self, const aclTensor* weight, aclTensor* out);

// rrelu with noise (CANN's aclnnRReluWithNoise: noise is declared const but
// written in training, as CANN's entry does).
TaskBody rrelu_with_noise_task(const aclTensor* self, const aclTensor* noise, const aclScalar* lower,
                               const aclScalar* upper, bool training, int64_t seed, int64_t offset, aclTensor* out);

// glu's dim wrapped against t's rank; ACLNN_ERR_PARAM_INVALID when t is
// 0-dim, dim is out of range or t's size there is odd.
int64_t glu_dim(int64_t dim, const aclTensor* t);

}  // namespace npu::emu
