// Task makers of the random family (ops/table/random.yaml; the counter
// contract is in the generated acl/aclnn_random.h). Arguments are checked on
// the host, so bad input fails synchronously; the kernels draw from
// (seed, offset) only (kernels/random/random_ops.h).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"
#include "kernels/random/random_ops.h"

namespace npu::emu {

// The generator state an entry is given, read when its task runs: host
// values (the eager form), or CANN's *Tensor form, one-element int64 device
// tensors (seedTensor, offsetTensor) whose state a captured graph advances
// between replays; `offset` is then added to offsetTensor[0].
class Philox {
 public:
  Philox(uint64_t seed, uint64_t offset) : base_{seed, offset} {}
  Philox(const aclTensor* seedTensor, const aclTensor* offsetTensor, uint64_t offset);
  kernels::PhiloxInputs operator()() const;

 private:
  kernels::PhiloxInputs base_;  // the *Tensor form: {unused, offset}
  const int64_t* seed_ = nullptr;  // the *Tensor form's device state
  const int64_t* offset_ = nullptr;
};

TaskBody uniform_task(const aclTensor* selfRef, double from, double to, Philox rng);
TaskBody normal_task(const aclTensor* selfRef, float mean, float std, Philox rng);
TaskBody random_task(const aclTensor* selfRef, int64_t from, int64_t to, Philox rng);
// random_() without bounds (kernels::full_random_range of selfRef's dtype).
TaskBody random_full_range_task(const aclTensor* selfRef, Philox rng);
TaskBody bernoulli_task(const aclTensor* selfRef, const aclScalar* prob, Philox rng);
TaskBody bernoulli_tensor_task(const aclTensor* selfRef, const aclTensor* prob, Philox rng);
TaskBody randperm_task(int64_t n, Philox rng, aclTensor* out);
TaskBody exponential_task(const aclTensor* selfRef, double lambd, Philox rng);
TaskBody dropout_task(const aclTensor* self, double p, Philox rng, aclTensor* out, aclTensor* maskOut);

}  // namespace npu::emu
