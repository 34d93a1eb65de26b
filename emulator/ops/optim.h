// Task makers of the fused optimizer family (ops/table/optim.yaml): one task
// steps every parameter of a list (kernels/optim/fused_optim.h).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody fused_adam_task(aclTensorList* params, aclTensorList* grads, aclTensorList* expAvgs,
                         aclTensorList* expAvgSqs, aclTensorList* maxExpAvgSqs, const aclTensorList* stateSteps,
                         double lr, double beta1, double beta2, double weightDecay, double eps, bool amsgrad,
                         bool maximize, bool decoupledWeightDecay, const aclTensor* gradScaleOptional,
                         const aclTensor* foundInfOptional);

TaskBody fused_sgd_task(aclTensorList* params, aclTensorList* grads, aclTensorList* momentumBuffers,
                        double weightDecay, double momentum, double lr, double dampening, bool nesterov,
                        bool maximize, bool isFirstStep, const aclTensor* gradScaleOptional,
                        const aclTensor* foundInfOptional);

TaskBody fused_adagrad_task(aclTensorList* params, aclTensorList* grads, aclTensorList* stateSums,
                            const aclTensorList* stateSteps, double lr, double lrDecay, double weightDecay,
                            double eps, bool maximize, const aclTensor* gradScaleOptional,
                            const aclTensor* foundInfOptional);

// CANN's aclnnApplyAdamWV2: one AdamW step (decoupled weight decay) of one
// parameter; `step` (1-element int64 or float32) is the count of steps taken
// before this one.
TaskBody apply_adamw_v2_task(aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, aclTensor* maxGradNormOptionalRef,
                             const aclTensor* grad, const aclTensor* step, float lr, float beta1, float beta2,
                             float weightDecay, float eps, bool amsgrad, bool maximize);

}  // namespace npu::emu
