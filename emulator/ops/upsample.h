// Task makers of the upsample family (ops/table/upsample.yaml): sizes and
// dtypes are checked on the host, the taps of every spatial dim computed
// there too; the task resamples (kernels/upsample/resample.h). `rank` is the
// number of spatial dims; `scales` holds one scale factor per spatial dim
// (output/input, aten's scales_*), 0 (or negative) meaning none given.
#pragma once

#include <vector>

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/upsample/upsample.h"

namespace npu::emu {

using kernels::UpsampleMode;

TaskBody upsample_task(UpsampleMode mode, int64_t rank, const aclTensor* self, const aclIntArray* outputSize,
                       bool alignCorners, const std::vector<double>& scales, aclTensor* out);
// gradInput (inputSize: N, C, *spatial) from gradOut (N, C, *outputSize).
TaskBody upsample_backward_task(UpsampleMode mode, int64_t rank, const aclTensor* gradOut,
                                const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners,
                                const std::vector<double>& scales, aclTensor* gradInput);

// Grid sampling (kernels/upsample/grid_sampler.h), `rank` 2 or 3 spatial
// dims; interpolationMode 0 bilinear, 1 nearest, 2 bicubic (2-d only);
// paddingMode 0 zeros, 1 border, 2 reflection (aten's codes).
TaskBody grid_sampler_task(int64_t rank, const aclTensor* input, const aclTensor* grid, int64_t interpolationMode,
                           int64_t paddingMode, bool alignCorners, aclTensor* out);

}  // namespace npu::emu
