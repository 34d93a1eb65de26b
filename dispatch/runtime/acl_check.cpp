#include "dispatch/runtime/acl_check.h"

#include <c10/util/Exception.h>

#include "dispatch/driver/acl_driver.h"

namespace npu {

void check_acl(int status, const char* call) {
  if (status == ACL_SUCCESS) return;
  const char* recent = driver::driver().aclGetRecentErrMsg();
  TORCH_CHECK(false, call, " failed, error code is ", status, "\n[ERROR] ERR00100 PTA call acl api failed",
              recent != nullptr ? "\n" : "", recent != nullptr ? recent : "");
}

}  // namespace npu
