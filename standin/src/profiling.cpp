// Profiling entry points: accepted and ignored. The emulator has no hardware
// counters to sample; torch_npu's profiler runs and records nothing from the
// device side (its host-side events still work).
#include <chrono>
#include <functional>
#include <string>

#include "standin_types.h"

extern "C" {

// msprof (libprofapi): registration and the report calls torch_npu binds at load.
ACL_FUNC_VISIBILITY int32_t MsprofRegisterCallback(uint32_t, void*) { return 0; }
ACL_FUNC_VISIBILITY int32_t MsprofReportApi(uint32_t, const void*) { return 0; }
ACL_FUNC_VISIBILITY int32_t MsprofReportCompactInfo(uint32_t, const void*, uint32_t) { return 0; }
ACL_FUNC_VISIBILITY int32_t MsprofReportAdditionalInfo(uint32_t, const void*, uint32_t) { return 0; }

// A stable id for a string, as profiling uses it to deduplicate names.
ACL_FUNC_VISIBILITY uint64_t MsprofGetHashId(const char* hashInfo, size_t length) {
  if (hashInfo == nullptr) return 0;
  return std::hash<std::string>{}(std::string(hashInfo, length));
}

// The "system cycle counter": nanoseconds of the steady clock.
ACL_FUNC_VISIBILITY uint64_t MsprofSysCycleTime(void) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// aclprof*: sessions that collect nothing. Configurations and step infos are
// opaque handles torch_npu only passes back; one static object serves all.
namespace {
char profiling_handle;
}

ACL_FUNC_VISIBILITY aclError aclprofInit(const char*, size_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY void* aclprofCreateConfig(uint32_t*, uint32_t, int, const void*, uint64_t) { return &profiling_handle; }
ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const void*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofStart(const void*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofStop(const void*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofSetConfig(int, const char*, size_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofWarmup(const void*) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclprofMarkEx(const char*, size_t, aclrtStream) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY void* aclprofCreateStepInfo(void) { return &profiling_handle; }
ACL_FUNC_VISIBILITY void aclprofDestroyStepInfo(void*) {}
ACL_FUNC_VISIBILITY aclError aclprofGetStepTimestamp(void*, int, aclrtStream) { return ACL_SUCCESS; }

}  // extern "C"
