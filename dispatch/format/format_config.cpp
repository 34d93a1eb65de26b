#include "dispatch/format/format_config.h"

#include <atomic>
#include <mutex>

#include "device_model/soc_profile.h"
#include "dispatch/driver/acl_driver.h"

namespace npu {

namespace {

// -1: not decided yet (the SoC is known only once the driver is loaded).
std::atomic<int> g_allow{-1};

bool soc_default() {
  const char* soc = NPU_ACL(aclrtGetSocName)();
  try {
    return soc != nullptr && model::soc_profile(soc).allow_internal_format_default;
  } catch (const std::invalid_argument&) {
    return false;  // unknown (newer) SoC: behave like the 910B generation
  }
}

}  // namespace

bool allow_internal_format() {
  int v = g_allow.load();
  if (v < 0) {
    int expected = -1;
    g_allow.compare_exchange_strong(expected, soc_default() ? 1 : 0);
    v = g_allow.load();
  }
  return v == 1;
}

void set_allow_internal_format(bool allow) { g_allow.store(allow ? 1 : 0); }

}  // namespace npu
