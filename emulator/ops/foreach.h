// Task makers of the foreach family (ops/table/foreach.yaml): pointwise ops
// and norms over tensor lists, and the mixed-precision gradient checks. One
// task covers a whole list (kernels/optim/foreach.h).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/optim/foreach.h"

namespace npu::emu {

// The rows of ops/table/foreach.yaml name the kernel's ops unqualified.
using kernels::ForeachFn;

// out[i] = fn(x[i]) (Sqrt, Neg).
TaskBody foreach_unary_task(ForeachFn fn, const aclTensorList* x, aclTensorList* out);
// out[i] = fn(x[i], scalar) with one host scalar for all tensors.
TaskBody foreach_scalar_task(ForeachFn fn, const aclTensorList* x, const aclScalar* scalar,
                             aclTensorList* out);
// The same with the scalar in a 1-element device tensor, read when the task runs.
TaskBody foreach_scalar_tensor_task(ForeachFn fn, const aclTensorList* x, const aclTensor* scalar,
                                    aclTensorList* out);
// out[i] = fn(x[i], scalars[i]).
TaskBody foreach_scalar_list_task(ForeachFn fn, const aclTensorList* x, const aclScalarList* scalars,
                                  aclTensorList* out);
// out[i] = fn(x1[i], x2[i]) with an optional scalar (alpha, lerp's weight).
TaskBody foreach_list_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                           const aclScalar* scalar, aclTensorList* out);
// The same with alpha in a 1-element device tensor (CANN's aclnnForeachAddList).
TaskBody foreach_list_alpha_tensor_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                                        const aclTensor* alpha, aclTensorList* out);
// out[i] = fn(x1[i], x2[i], x3[i], scalar) (Addcmul, Addcdiv).
TaskBody foreach_ternary_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                              const aclTensorList* x3, const aclScalar* scalar, aclTensorList* out);
// The same with one scalar per tensor, from a 1-D device tensor of len(x1) values.
TaskBody foreach_ternary_scalars_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                                      const aclTensorList* x3, const aclTensor* scalars, aclTensorList* out);
// out[i] (0-dim) = the p-norm of x[i].
TaskBody foreach_norm_task(const aclTensorList* x, const aclScalar* p, aclTensorList* out);

TaskBody non_finite_check_and_unscale_task(const aclTensorList* scaledGrads, const aclTensor* foundInf,
                                           const aclTensor* inScale);
TaskBody amp_update_scale_task(const aclTensor* currentScale, const aclTensor* growthTracker,
                               const aclTensor* foundInf, double growthFactor, double backoffFactor,
                               int64_t growthInterval, const aclTensor* updatedScaleOut,
                               const aclTensor* updatedGrowthTrackerOut);

}  // namespace npu::emu
