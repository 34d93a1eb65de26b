// The activation entries (ops/table/activation.yaml and the backward rows of
// activation_backward.yaml) refuse bad arguments at GetWorkspaceSize, naming
// what is wrong, and queue nothing.
#include <catch2/catch.hpp>

#include <cstdint>

#include "acl/acl_rt.h"
#include "acl/aclnn_activation.h"
#include "acl/aclnn_activation_backward.h"
#include "acl/aclnn_base.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::require_refused;
using acl_test::Tensor1D;

TEST_CASE("activation entries refuse bad arguments and queue nothing", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer a(64), b(64), c(64), d(64);
  const Tensor1D x3(a.get(), 3), x4(a.get(), 4), w2(b.get(), 2), o3(c.get(), 3), o2(c.get(), 2), o1(c.get(), 1);
  const Tensor1D buf1(d.get(), 1), n3(d.get(), 3), oi3(c.get(), 3, ACL_INT64);
  const double lo_v = 0.4, hi_v = 0.2;
  aclScalar* lo = aclCreateScalar(const_cast<double*>(&lo_v), ACL_DOUBLE);
  aclScalar* hi = aclCreateScalar(const_cast<double*>(&hi_v), ACL_DOUBLE);
  acl_test::KernelDelay delay(20000);  // a queued task would still be pending at the synchronize below

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnGluGetWorkspaceSize(x3.get(), 0, o1.get(), ws, ex); },
                  "must be even");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnGluGetWorkspaceSize(x4.get(), 1, o2.get(), ws, ex); },
                  "out of range");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnPreluGetWorkspaceSize(x3.get(), w2.get(), o3.get(), ws, ex);
  }, "broadcast");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLogSigmoidForwardGetWorkspaceSize(x3.get(), o3.get(), buf1.get(), ws, ex);
  }, "buffer");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnHardswishGetWorkspaceSize(x3.get(), oi3.get(), ws, ex); },
                  "out");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRReluWithNoiseGetWorkspaceSize(x3.get(), n3.get(), lo, hi, true, 0, 0, o3.get(), ws, ex);
  }, "lower");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnEluBackwardGetWorkspaceSize(o3.get(), nullptr, lo, lo, false, x3.get(), n3.get(), ws, ex);
  }, "alpha");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnGluBackwardGetWorkspaceSize(o3.get(), x4.get(), 0, n3.get(), ws, ex);
  }, "out");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnPreluBackwardGetWorkspaceSize(o3.get(), x3.get(), w2.get(), n3.get(), o3.get(), ws, ex);
  }, "broadcast");
  aclDestroyScalar(lo);
  aclDestroyScalar(hi);

  // Nothing was queued: the device synchronizes cleanly.
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
}
