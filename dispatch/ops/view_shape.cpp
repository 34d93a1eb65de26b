#include <memory>

#include "dispatch/ops/op_runner.h"

namespace npu::ops {

std::vector<int64_t> synchronized_view_shape(const AclTensor& t) {
  // The op narrows the shape when it runs on the stream, not when launched.
  check_acl(NPU_ACL(aclrtSynchronizeStream)(current_acl_stream()), "aclrtSynchronizeStream");
  int64_t* dims = nullptr;
  uint64_t count = 0;
  check_acl(NPU_ACL(aclGetViewShape)(t.get(), &dims, &count), "aclGetViewShape");
  const std::unique_ptr<int64_t[]> owned(dims);  // the caller owns the array
  return std::vector<int64_t>(dims, dims + count);
}

}  // namespace npu::ops
