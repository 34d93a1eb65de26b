// The SoC profile table: every known chip present with plausible figures,
// and unknown names rejected with the list of known ones (what a user who
// mistyped NPU_EMU_SOC needs to see).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "device_model/soc_profile.h"

using npu::model::soc_profile;
using npu::model::soc_profiles;
using npu::model::SocProfile;

namespace {
constexpr uint64_t GiB = 1024ull * 1024 * 1024;
constexpr uint64_t MiB = 1024ull * 1024;

const char* const kExpectedSocs[] = {"Ascend910B1", "Ascend910B2",    "Ascend910B3", "Ascend910B4",
                                     "Ascend910_9391", "Ascend910A", "Ascend310P3"};
}  // namespace

TEST_CASE("every expected SoC profile is listed once, by name", "[soc]") {
  std::set<std::string> names;
  for (const SocProfile& p : soc_profiles()) {
    CAPTURE(p.name);
    REQUIRE(names.insert(p.name).second);  // unique
  }
  for (const char* name : kExpectedSocs) {
    CAPTURE(name);
    REQUIRE(names.count(name) == 1);
    REQUIRE(&soc_profile(name) == &soc_profile(name));  // one stable object
    REQUIRE(soc_profile(name).name == name);
  }
  REQUIRE(names.count(std::string(npu::model::kDefaultSoc)) == 1);
}

TEST_CASE("every SoC profile has sane fields", "[soc]") {
  for (const SocProfile& p : soc_profiles()) {
    CAPTURE(p.name);
    REQUIRE(p.name.rfind("Ascend", 0) == 0);
    REQUIRE(p.hbm_bytes >= 8 * GiB);
    REQUIRE(p.hbm_bytes <= 256 * GiB);
    REQUIRE(p.hbm_bytes % GiB == 0);
    REQUIRE(p.cube_core_num > 0);
    REQUIRE(p.cube_core_num <= 64);
    REQUIRE(p.vector_core_num > 0);
    REQUIRE(p.vector_core_num <= 2 * 64);
    REQUIRE(p.l2_cache_bytes >= 8 * MiB);
    REQUIRE(p.l2_cache_bytes <= 512 * MiB);
    REQUIRE(p.l2_cache_bytes % MiB == 0);
  }
}

TEST_CASE("the published figures of the default Ascend910B1", "[soc]") {
  const SocProfile& p = soc_profile("Ascend910B1");
  REQUIRE(p.hbm_bytes == 64 * GiB);
  REQUIRE(p.cube_core_num == 24);
  REQUIRE(p.vector_core_num == 48);
  REQUIRE(p.l2_cache_bytes == 192 * MiB);
}

TEST_CASE("910B-generation chips have two vector cores per cube core", "[soc]") {
  for (const char* name : {"Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_9391"}) {
    CAPTURE(name);
    REQUIRE(soc_profile(name).vector_core_num == 2 * soc_profile(name).cube_core_num);
  }
}

TEST_CASE("internal formats default off on 910B/910_93 and on for older chips", "[soc]") {
  for (const char* name : {"Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_9391"}) {
    CAPTURE(name);
    REQUIRE_FALSE(soc_profile(name).allow_internal_format_default);
  }
  for (const char* name : {"Ascend910A", "Ascend310P3"}) {
    CAPTURE(name);
    REQUIRE(soc_profile(name).allow_internal_format_default);
  }
}

TEST_CASE("an unknown SoC name is std::invalid_argument listing the known names", "[soc]") {
  for (const char* bad : {"Ascend999", "", "ascend910b1", "Ascend910B1 "}) {
    CAPTURE(bad);
    try {
      soc_profile(bad);
      FAIL("no exception for an unknown SoC");
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      REQUIRE(msg.find("'" + std::string(bad) + "'") != std::string::npos);
      for (const SocProfile& p : soc_profiles()) {
        CAPTURE(p.name);
        REQUIRE(msg.find(p.name) != std::string::npos);
      }
    }
  }
}
