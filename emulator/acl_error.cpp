#include "emulator/acl_error.h"

#include "kernels/core/tensor_view.h"

namespace npu::emu {

namespace {
// The last failure's text for this thread; what aclGetRecentErrMsg returns.
thread_local std::string t_recent_error;
thread_local std::string t_returned_error;
}  // namespace

void set_recent_error(const std::string& message) { t_recent_error = message; }

const char* recent_error() {
  // Like CANN: reading the message clears it; nullptr when there is none.
  if (t_recent_error.empty()) return nullptr;
  t_returned_error = std::move(t_recent_error);
  t_recent_error.clear();
  return t_returned_error.c_str();
}

int translate_exception(const char* api) noexcept {
  try {
    throw;
  } catch (const AclError& e) {
    set_recent_error(std::string(api) + ": " + e.what());
    return e.code();
  } catch (const kernels::KernelError& e) {
    set_recent_error(std::string(api) + ": " + e.what());
    return ACLNN_ERR_PARAM_INVALID;
  } catch (const std::invalid_argument& e) {
    set_recent_error(std::string(api) + ": " + e.what());
    return ACL_ERROR_INVALID_PARAM;
  } catch (const std::bad_alloc&) {
    set_recent_error(std::string(api) + ": host memory exhausted");
    return ACL_ERROR_BAD_ALLOC;
  } catch (const std::exception& e) {
    set_recent_error(std::string(api) + ": internal error: " + e.what());
    return ACL_ERROR_RT_INTERNAL_ERROR;
  } catch (...) {
    set_recent_error(std::string(api) + ": unknown internal error");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
}

}  // namespace npu::emu
