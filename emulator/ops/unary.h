// Task makers of the unary pointwise family and aclnnCast
// (ops/table/unary.yaml): each checks one call's operands on the host and
// returns the kernel task.
#pragma once

#include <cstdint>
#include <functional>

#include "acl/acl_base.h"
#include "kernels/pointwise/unary_ops.h"

namespace npu::emu {

using kernels::UnaryFn;

// out = op(self), computed in the op's result dtype for self's dtype, then
// converted into out (whose dtype must be castable from it).
std::function<void()> unary_task(UnaryFn op, const aclTensor* self, aclTensor* out,
                                 const kernels::UnaryParams& params = {});

// aclnnGeluV2's approximate: 0 exact (erf), 1 tanh.
std::function<void()> gelu_v2_task(const aclTensor* x, int64_t approximate, aclTensor* y);

// The n-th derivative of digamma; n must be >= 0.
std::function<void()> polygamma_task(int64_t n, const aclTensor* self, aclTensor* out);

std::function<void()> round_decimals_task(const aclTensor* self, int64_t decimals, aclTensor* out);

// A posinf/neginf of +-FLT_MAX stands for the output dtype's own extreme.
std::function<void()> nan_to_num_task(const aclTensor* self, float nan, float posinf, float neginf, aclTensor* out);

// out = self converted to dtype, which must be out's dtype.
std::function<void()> cast_task(const aclTensor* self, aclDataType dtype, aclTensor* out);

}  // namespace npu::emu
