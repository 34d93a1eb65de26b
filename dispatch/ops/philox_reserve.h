// Reserving Philox counter words from an npu generator, for the ops that draw
// random numbers (dispatch/ops/random.cpp, rrelu_with_noise in
// dispatch/ops/activation.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>

#include <ATen/core/Generator.h>
#include <ATen/core/DistributionsHelper.h>

#include "dispatch/runtime/npu_generator.h"

namespace npu::ops {

struct PhiloxSlice {
  uint64_t seed;
  uint64_t offset;
};

// Reserves the counter words an op on `numel` elements consumes (4 per
// element: see acl/aclnn_random.h) from `generator` or the default generator
// of `device`.
inline PhiloxSlice reserve(const std::optional<at::Generator>& generator, c10::Device device, int64_t numel) {
  auto* gen = at::get_generator_or_default<NpuGeneratorImpl>(generator, default_generator(device.index()));
  TORCH_CHECK(gen->device().index() == device.index(), "the generator is on ", gen->device(),
              " but the tensor is on ", device, "; use a generator of the tensor's device");
  std::lock_guard<std::mutex> lock(gen->mutex_);
  const auto [seed, offset] = gen->philox_engine_inputs(4 * static_cast<uint64_t>(std::max<int64_t>(numel, 0)));
  return {seed, offset};
}

}  // namespace npu::ops
