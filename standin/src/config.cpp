// Configuration calls with nothing to configure on the emulator, accepted as
// documented no-ops: saturation/overflow modes (the emulator computes in IEEE
// arithmetic), operator timeouts (kernels run on host threads and always
// finish), dump settings (no device dump), stream failure modes and system
// parameters.
#include <map>
#include <mutex>

#include "recent_error.h"
#include "standin_types.h"

namespace {

class SysParams {
 public:
  void set(int opt, int64_t value) {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[opt] = value;
  }
  int64_t get(int opt) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = values_.find(opt);
    return it == values_.end() ? 0 : it->second;
  }

 private:
  std::mutex mutex_;
  std::map<int, int64_t> values_;
};

SysParams& sys_params() {
  static SysParams params;
  return params;
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream, uint32_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream, uint32_t* flag) {
  if (flag == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetStreamOverflowSwitch: flag is null");
  *flag = 0;
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t) { return ACL_SUCCESS; }
// Reports the timeout as granted exactly.
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t* actualTimeout) {
  if (actualTimeout != nullptr) *actualTimeout = timeout;
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream, uint64_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream, aclrtStreamAttr, void*) { return ACL_SUCCESS; }
// System parameters (deterministic computation, ...) are remembered and read
// back; they change nothing: the emulator's kernels are always deterministic.
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(int opt, int64_t value) {
  sys_params().set(opt, value);
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(int opt, int64_t value) { return aclrtSetSysParamOpt(opt, value); }
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(int opt, int64_t* value) {
  if (value == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value is null");
  *value = sys_params().get(opt);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t, const char*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t) { return ACL_SUCCESS; }

}  // extern "C"
