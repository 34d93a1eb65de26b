// SoC profiles: the facts about an Ascend chip that the emulator reproduces
// (name, memory, core counts, format defaults). Pure data, no runtime.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npu::model {

struct SocProfile {
  std::string name;  // what aclrtGetSocName returns, e.g. "Ascend910B1"
  uint64_t hbm_bytes;
  int32_t cube_core_num;
  int32_t vector_core_num;
  uint64_t l2_cache_bytes;
  // torch.npu.config.allow_internal_format's default on this SoC: off on the
  // 910B/910_93 generation, on for older chips.
  bool allow_internal_format_default;
};

const std::vector<SocProfile>& soc_profiles();

// The profile called `name`; throws std::invalid_argument listing the known
// names when there is none.
const SocProfile& soc_profile(std::string_view name);

inline constexpr std::string_view kDefaultSoc = "Ascend910B1";

}  // namespace npu::model
