// Task makers of the pooling family (ops/table/pool.yaml): argument lists,
// shapes and dtypes are checked on the host; the task pools
// (kernels/pool/pool.h). `rank` is the number of pooled (spatial) dims.
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                       aclTensor* indices);
TaskBody max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* indices, const aclIntArray* kernelSize, const aclIntArray* stride,
                                const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode,
                                aclTensor* gradInput);
// aclnnMaxPool2dWithMask and its backward: 2-d max pooling whose indices are
// CANN's int8 mask (kernels/pool/max_pool_mask.h), made by the forward and
// read back by the backward.
TaskBody max_pool_mask_task(const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                            const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                            aclTensor* indices);
TaskBody max_pool_mask_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
                                     const aclIntArray* kernelSize, const aclIntArray* stride,
                                     const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode,
                                     aclTensor* gradInput);
TaskBody avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                       aclTensor* out);
TaskBody avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclIntArray* kernelSize, const aclIntArray* stride, const aclIntArray* padding,
                                bool ceilMode, bool countIncludePad, int64_t divisorOverride, aclTensor* gradInput);
TaskBody adaptive_avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out);
TaskBody adaptive_avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         aclTensor* gradInput);
TaskBody adaptive_max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out,
                                aclTensor* indices);
// The adaptive max pools' backward: a scatter by indices, as the sliding one's.
TaskBody adaptive_max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         const aclTensor* indices, aclTensor* gradInput);

// Max unpooling (kernels/pool/max_unpool.h): out, (N, C, *outputSize) or
// (C, *outputSize), zero but at the indices. 3-d unpooling's stride and
// padding must hold 3 entries (stride > 0); they do not change the result.
TaskBody max_unpool_task(int64_t rank, const aclTensor* self, const aclTensor* indices, const aclIntArray* outputSize,
                         const aclIntArray* stride, const aclIntArray* padding, aclTensor* out);

}  // namespace npu::emu
