// Task makers of the convolution family (ops/table/conv.yaml): shapes,
// dtypes, formats and the convolution parameters are checked on the host;
// the task runs kernels/conv/conv.h. Inputs in NC1HWC0 / NDC1HWC0, weights in
// FRACTAL_Z / FRACTAL_Z_3D and outputs in NC1HWC0 / NDC1HWC0 are addressed in
// their own layouts.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody convolution_task(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                          const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation,
                          bool transposed, const aclIntArray* outputPadding, int64_t groups, aclTensor* output,
                          int8_t cubeMathType);

TaskBody convolution_backward_task(const aclTensor* gradOutput, const aclTensor* input, const aclTensor* weight,
                                   const aclIntArray* biasSizes, const aclIntArray* stride,
                                   const aclIntArray* padding, const aclIntArray* dilation, bool transposed,
                                   const aclIntArray* outputPadding, int groups, const aclBoolArray* outputMask,
                                   int8_t cubeMathType, aclTensor* gradInput, aclTensor* gradWeight,
                                   aclTensor* gradBias);

}  // namespace npu::emu
