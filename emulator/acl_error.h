// How the emulator reports failure: internally as exceptions carrying an ACL
// error code, at the C API boundary as that code plus a per-thread "recent
// error message" (aclGetRecentErrMsg), exactly like the CANN runtime.
#pragma once

#include <stdexcept>
#include <string>

#include "acl/acl_base.h"

namespace npu::emu {

class AclError : public std::runtime_error {
 public:
  AclError(aclError code, const std::string& message) : std::runtime_error(message), code_(code) {}
  aclError code() const { return code_; }

 private:
  aclError code_;
};

[[noreturn]] inline void fail(aclError code, const std::string& message) { throw AclError(code, message); }

void set_recent_error(const std::string& message);
const char* recent_error();  // consumed by aclGetRecentErrMsg

// Runs `body` for the C API function `api`, turning any exception into its
// error code and the recent-error message. Never throws.
template <class Body>
int guarded(const char* api, Body&& body) noexcept;

int translate_exception(const char* api) noexcept;  // for use in a catch(...) block

template <class Body>
int guarded(const char* api, Body&& body) noexcept {
  try {
    body();
    return ACL_SUCCESS;
  } catch (...) {
    return translate_exception(api);
  }
}

}  // namespace npu::emu
