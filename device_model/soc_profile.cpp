#include "device_model/soc_profile.h"

#include <stdexcept>

namespace npu::model {

namespace {
constexpr uint64_t GiB = 1024ull * 1024 * 1024;
constexpr uint64_t MiB = 1024ull * 1024;
}  // namespace

// Capacities and core counts are the published figures of each part (HBM as
// seen by a process, rounded to whole GiB).
const std::vector<SocProfile>& soc_profiles() {
  static const std::vector<SocProfile> profiles = {
      {"Ascend910B1", 64 * GiB, 24, 48, 192 * MiB, false},
      {"Ascend910B2", 64 * GiB, 24, 48, 192 * MiB, false},
      {"Ascend910B3", 64 * GiB, 20, 40, 192 * MiB, false},
      {"Ascend910B4", 32 * GiB, 20, 40, 96 * MiB, false},
      {"Ascend910_9391", 64 * GiB, 24, 48, 192 * MiB, false},
      {"Ascend910A", 32 * GiB, 32, 32, 32 * MiB, true},
      {"Ascend310P3", 24 * GiB, 8, 7, 16 * MiB, true},
  };
  return profiles;
}

const SocProfile& soc_profile(std::string_view name) {
  for (const auto& p : soc_profiles()) {
    if (p.name == name) return p;
  }
  std::string known;
  for (const auto& p : soc_profiles()) known += (known.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument("unknown SoC '" + std::string(name) + "'; known SoCs: " + known);
}

}  // namespace npu::model
