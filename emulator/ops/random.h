// Task makers of the random family (ops/table/random.yaml; the counter
// contract is in the generated acl/aclnn_random.h). Arguments are checked on
// the host, so bad input fails synchronously; the kernels draw from
// (seed, offset) only (kernels/random/random_ops.h).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody uniform_task(const aclTensor* selfRef, double from, double to, uint64_t seed, uint64_t offset);
TaskBody normal_task(const aclTensor* selfRef, float mean, float std, int64_t seed, int64_t offset);
TaskBody random_task(const aclTensor* selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset);
// CANN's *Tensor forms: the seed and base counter offset are one-element
// int64 device tensors read when the task runs (offset is added to the latter).
TaskBody uniform_tensor_task(const aclTensor* selfRef, double from, double to, const aclTensor* seedTensor,
                             const aclTensor* offsetTensor, uint64_t offset);
TaskBody normal_tensor_task(const aclTensor* selfRef, float mean, float std, const aclTensor* seedTensor,
                            const aclTensor* offsetTensor, int64_t offset);
// random_() without bounds (kernels::full_random_range of selfRef's dtype).
TaskBody random_full_range_task(const aclTensor* selfRef, int64_t seed, int64_t offset);
TaskBody random_full_range_tensor_task(const aclTensor* selfRef, const aclTensor* seedTensor,
                                       const aclTensor* offsetTensor, int64_t offset);
TaskBody random_tensor_task(const aclTensor* selfRef, int64_t from, int64_t to, const aclTensor* seedTensor,
                            const aclTensor* offsetTensor, int64_t offset);
TaskBody bernoulli_task(const aclTensor* selfRef, const aclScalar* prob, int64_t seed, int64_t offset);
TaskBody bernoulli_tensor_task(const aclTensor* selfRef, const aclTensor* prob, int64_t seed,
                               int64_t offset);
TaskBody randperm_task(int64_t n, int64_t seed, int64_t offset, aclTensor* out);
TaskBody exponential_task(const aclTensor* selfRef, double lambd, int64_t seed, int64_t offset);
TaskBody dropout_task(const aclTensor* self, double p, int64_t seed, int64_t offset, aclTensor* out,
                      aclTensor* maskOut);

}  // namespace npu::emu
