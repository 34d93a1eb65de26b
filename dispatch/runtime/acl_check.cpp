#include "dispatch/runtime/acl_check.h"

#include <cstring>

#include <c10/util/Exception.h>

#include "dispatch/driver/acl_driver.h"

namespace npu {

void check_acl(int status, const char* call) {
  if (status == ACL_SUCCESS) return;
  const char* recent = driver::driver().aclGetRecentErrMsg();
  // An op refusing a dtype is what PyTorch reports as NotImplementedError
  // ("abs_cpu" not implemented for 'Bool'); the aclnn entries word it
  // "<op>: unsupported dtype <dtype>", so callers can tell it apart.
  const bool unsupported_dtype = recent != nullptr && std::strstr(recent, ": unsupported dtype ") != nullptr;
  TORCH_CHECK_NOT_IMPLEMENTED(!unsupported_dtype, call, " failed, error code is ", status,
                              "\n[ERROR] ERR00100 PTA call acl api failed\n", recent);
  TORCH_CHECK(false, call, " failed, error code is ", status, "\n[ERROR] ERR00100 PTA call acl api failed",
              recent != nullptr ? "\n" : "", recent != nullptr ? recent : "");
}

}  // namespace npu
