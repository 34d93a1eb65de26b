// Task makers of the embedding family (ops/table/embedding.yaml).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out (indices' shape + [D]) = the rows of weight [V, D] named by indices.
TaskBody embedding_task(const aclTensor* weight, const aclTensor* indices, aclTensor* out);

// out [numWeights, D] = the gradient of a row lookup; paddingIdx is CANN's
// uint64_t, read as int64 (a negative value: no padding row).
TaskBody embedding_dense_backward_task(const aclTensor* grad, const aclTensor* indices, uint64_t numWeights,
                                       uint64_t paddingIdx, bool scaleGradByFreq, aclTensor* out);

// Rows of selfRef [V, D] named by indices scaled to norm <= maxNorm, in place.
TaskBody embedding_renorm_task(aclTensor* selfRef, const aclTensor* indices, double maxNorm, double normType);

// embedding_bag over bags of indices (kernels/embedding/embedding.h); mode
// 0 sum, 1 mean, 2 max.
TaskBody embedding_bag_task(const aclTensor* weight, const aclTensor* indices, const aclTensor* offsets,
                            bool scaleGradByFreq, int64_t mode, bool sparse, const aclTensor* perSampleWeights,
                            bool includeLastOffset, int64_t paddingIdx, aclTensor* output, aclTensor* offset2bag,
                            aclTensor* bagSize, aclTensor* maxIndices);
TaskBody embedding_bag_dense_backward_task(const aclTensor* grad, const aclTensor* indices,
                                           const aclTensor* offset2bag, const aclTensor* bagSize,
                                           const aclTensor* maxIndices, uint64_t numWeights, bool scaleGradByFreq,
                                           int64_t mode, const aclTensor* perSampleWeights, int64_t paddingIdx,
                                           aclTensor* out);

TaskBody embedding_bag_per_sample_weights_backward_task(const aclTensor* grad, const aclTensor* weight,
                                                        const aclTensor* indices, const aclTensor* offsets,
                                                        const aclTensor* offset2bag, int64_t mode, int64_t paddingIdx,
                                                        aclTensor* out);

}  // namespace npu::emu
