#include "recent_error.h"

#include <cstdio>
#include <cstdlib>

#include "emulator_link.h"
#include "log_settings.h"
#include "standin_types.h"

namespace npu::standin {

namespace {

// The stand-in's pending message; consumed by the next aclGetRecentErrMsg.
thread_local std::string pending;
// Keeps the returned text alive until this thread's next call.
thread_local std::string returned;

}  // namespace

int fail(int code, const std::string& message) {
  pending = message;
  // CANN prints nothing itself; a failing call's text reaches the user via
  // torch_npu's exception. NPU_EMU_STANDIN_VERBOSE=1 also echoes it at once.
  if (log_settings().verbose) std::fprintf(stderr, "[npu-emu CANN stand-in] %s\n", message.c_str());
  return code;
}

int unsupported(const char* function, const std::string& what_instead) {
  return fail(ACL_ERROR_FEATURE_UNSUPPORTED,
              std::string(function) + " is not supported by npu-emu's emulated CANN. " + what_instead);
}

}  // namespace npu::standin

extern "C" ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void) {
  using npu::standin::pending;
  using npu::standin::returned;
  if (!pending.empty()) {
    returned.swap(pending);
    pending.clear();
    return returned.c_str();
  }
  using Fn = const char* (*)();
  static const auto emulator = reinterpret_cast<Fn>(npu::standin::emulator_symbol("aclGetRecentErrMsg"));
  return emulator();
}
