// Turning ACL status codes into PyTorch errors, in torch_npu's shape: the
// call, the code, "ERR00100 PTA call acl api failed", and the runtime's
// recent message.
#pragma once

#include <string>

#include "acl/acl_base.h"
#include "dispatch/driver/acl_driver.h"

namespace npu {

// Throws c10::Error (RuntimeError in Python) when `status` is not success.
void check_acl(int status, const char* call);

}  // namespace npu

#define NPU_CHECK(name, ...) ::npu::check_acl(NPU_ACL(name)(__VA_ARGS__), #name)
