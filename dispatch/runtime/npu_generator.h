// The npu random generator: a counter-based generator's (seed, offset) pair,
// as torch_npu keeps it. Its state is 16 bytes: uint64 seed + int64 offset.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

namespace npu {

class NpuGeneratorImpl final : public c10::GeneratorImpl {
 public:
  explicit NpuGeneratorImpl(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);

  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override;
  void set_offset(uint64_t offset) override { offset_ = offset; }
  uint64_t get_offset() const override { return offset_; }
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

  // Reserves `increment` counter values for one kernel launch and returns the
  // (seed, offset) that launch must use; the caller holds the generator mutex.
  std::pair<uint64_t, uint64_t> philox_engine_inputs(uint64_t increment);

 private:
  NpuGeneratorImpl* clone_impl() const override;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

const at::Generator& default_generator(c10::DeviceIndex device);
at::Generator new_generator(c10::DeviceIndex device);

}  // namespace npu
