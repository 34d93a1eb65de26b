#include "dispatch/runtime/npu_generator.h"

#include <array>
#include <cstring>
#include <mutex>
#include <random>

#include <ATen/Utils.h>
#include <ATen/core/GeneratorForPrivateuseone.h>
#include <c10/core/TensorImpl.h>

#include "device_model/limits.h"
#include "dispatch/runtime/npu_device.h"

namespace npu {

namespace {
constexpr size_t kStateBytes = sizeof(uint64_t) + sizeof(int64_t);
using model::kMaxDevices;
}  // namespace

NpuGeneratorImpl::NpuGeneratorImpl(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void NpuGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t NpuGeneratorImpl::seed() {
  const uint64_t s = std::random_device{}() | (static_cast<uint64_t>(std::random_device{}()) << 32);
  set_current_seed(s);
  return s;
}

void NpuGeneratorImpl::set_state(const c10::TensorImpl& new_state) {
  TORCH_CHECK(new_state.dtype() == caffe2::TypeMeta::Make<uint8_t>() && new_state.numel() == kStateBytes,
              "RNG state must be a torch.ByteTensor of ", kStateBytes, " bytes (uint64 seed + int64 offset), got ",
              new_state.numel(), " elements of ", new_state.dtype().name());
  TORCH_CHECK(new_state.device().is_cpu(), "RNG state must be a CPU tensor");
  const auto* bytes = static_cast<const uint8_t*>(new_state.data());
  uint64_t seed = 0;
  int64_t offset = 0;
  std::memcpy(&seed, bytes, sizeof(seed));
  std::memcpy(&offset, bytes + sizeof(seed), sizeof(offset));
  TORCH_CHECK(offset >= 0, "RNG state offset must be non-negative, got ", offset);
  seed_ = seed;
  offset_ = static_cast<uint64_t>(offset);
}

c10::intrusive_ptr<c10::TensorImpl> NpuGeneratorImpl::get_state() const {
  auto state = at::detail::empty_cpu({static_cast<int64_t>(kStateBytes)}, at::kByte, std::nullopt, std::nullopt,
                                     std::nullopt, std::nullopt);
  auto* bytes = state.data_ptr<uint8_t>();
  const auto offset = static_cast<int64_t>(offset_);
  std::memcpy(bytes, &seed_, sizeof(seed_));
  std::memcpy(bytes + sizeof(seed_), &offset, sizeof(offset));
  return state.getIntrusivePtr();
}

std::pair<uint64_t, uint64_t> NpuGeneratorImpl::philox_engine_inputs(uint64_t increment) {
  // Offsets advance in multiples of 4: one Philox call yields 4 values.
  const uint64_t offset = offset_;
  offset_ += (increment + 3) / 4 * 4;
  return {seed_, offset};
}

NpuGeneratorImpl* NpuGeneratorImpl::clone_impl() const {
  auto* g = new NpuGeneratorImpl(device().index(), seed_);
  g->offset_ = offset_;
  return g;
}

const at::Generator& default_generator(c10::DeviceIndex device) {
  static std::array<std::once_flag, kMaxDevices> once;
  static std::array<at::Generator, kMaxDevices> generators;
  if (device < 0) device = current_device();
  check_device_index(device);
  std::call_once(once[device], [&] { generators[device] = at::make_generator<NpuGeneratorImpl>(device); });
  return generators[device];
}

at::Generator new_generator(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  return at::make_generator<NpuGeneratorImpl>(device);
}

}  // namespace npu
