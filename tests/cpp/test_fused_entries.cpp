// The fused LLM entries (ops/table/fused.yaml), as the real torch_npu calls
// them through the C API, refuse bad arguments at GetWorkspaceSize naming what
// is wrong, and queue nothing.
#include <catch2/catch.hpp>

#include <cstdint>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_fused.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::require_refused;
using acl_test::Tensor1D;

TEST_CASE("fused entries refuse bad arguments and queue nothing", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer a(64), b(64), c(64);
  const Tensor1D x3(a.get(), 3), x4(a.get(), 4), o2(c.get(), 2), o3(c.get(), 3), o4(c.get(), 4), c4(b.get(), 4);
  const Tensor1D i4(c.get(), 4, ACL_INT32), f2(b.get(), 2, ACL_BOOL);
  acl_test::KernelDelay delay(20000);  // a queued task would still be pending at the synchronize below

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnSwiGluGetWorkspaceSize(x3.get(), -1, o2.get(), ws, ex); },
                  "must be even");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnSwiGluGetWorkspaceSize(x4.get(), 1, o2.get(), ws, ex); },
                  "out of range");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRotaryPositionEmbeddingGetWorkspaceSize(x4.get(), c4.get(), c4.get(), 2, o4.get(), ws, ex);
  }, "mode 2");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRotaryPositionEmbeddingGetWorkspaceSize(x4.get(), o3.get(), c4.get(), 0, o4.get(), ws, ex);
  }, "cos must broadcast");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnApplyRotaryPosEmbGetWorkspaceSize(o4.get(), o4.get(), c4.get(), c4.get(), 4, ws, ex);
  }, "TND");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnScaledMaskedSoftmaxGetWorkspaceSize(x4.get(), nullptr, 1.0, false, o3.get(), ws, ex);
  }, "y must have shape");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(x4.get(), f2.get(), 1, o4.get(), i4.get(), i4.get(), ws, ex);
  }, "2-D or 3-D");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnInplaceScatterUpdateGetWorkspaceSize(o4.get(), i4.get(), x4.get(), -1, ws, ex);
  }, "rank of at least 2");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnAddRmsNormGetWorkspaceSize(x4.get(), x3.get(), c4.get(), 1e-6, o4.get(), o2.get(), o4.get(), ws, ex);
  }, "x2 must have shape");

  // Nothing was queued: the device synchronizes cleanly.
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
}
