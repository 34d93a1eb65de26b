// The norm / softmax / loss entries refuse bad arguments at GetWorkspaceSize
// time, naming the parameter, and queue nothing; aclCreateBoolArray carries
// aclnnBatchNormBackward's outputMask.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_loss.h"
#include "acl/aclnn_norm.h"
#include "acl/aclnn_softmax.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::make_tensor;
using acl_test::require_refused;
using acl_test::TensorPtr;

TEST_CASE("norm, softmax and loss entries refuse bad arguments by name", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer a(1024), b(1024), c(1024), d(1024), e(1024);
  const TensorPtr x = make_tensor(a.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr y = make_tensor(b.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr gx = make_tensor(c.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr c3 = make_tensor(d.get(), {3}, ACL_FLOAT);
  const TensorPtr c3b = make_tensor(e.get(), {3}, ACL_FLOAT);
  const TensorPtr c4 = make_tensor(d.get(), {4}, ACL_FLOAT);
  const TensorPtr t4 = make_tensor(e.get(), {4}, ACL_INT64);
  const TensorPtr t4f = make_tensor(e.get(), {4}, ACL_FLOAT);
  const TensorPtr scalar = make_tensor(d.get(), {}, ACL_FLOAT);
  const TensorPtr v1 = make_tensor(a.get(), {3}, ACL_FLOAT);

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) { return aclnnSoftmaxGetWorkspaceSize(x.get(), 2, y.get(), ws, ex); },
                  "out of range");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLogSoftmaxBackwardGetWorkspaceSize(x.get(), c3.get(), 0, y.get(), ws, ex);
  }, "gradOutput");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnNLLLossGetWorkspaceSize(x.get(), t4.get(), nullptr, 5, -100, scalar.get(), scalar.get(), ws, ex);
  }, "reduction");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnNLLLossGetWorkspaceSize(x.get(), t4f.get(), nullptr, 1, -100, scalar.get(), scalar.get(), ws, ex);
  }, "target");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnNLLLossGetWorkspaceSize(x.get(), t4.get(), c4.get(), 1, -100, scalar.get(), scalar.get(), ws, ex);
  }, "weight");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormGetWorkspaceSize(v1.get(), nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, v1.get(),
                                          c3.get(), c3b.get(), ws, ex);
  }, "at least 2 dims");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormGetWorkspaceSize(x.get(), c4.get(), nullptr, nullptr, nullptr, true, 0.1, 1e-5, y.get(),
                                          c3.get(), c3b.get(), ws, ex);
  }, "weight");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormGetWorkspaceSize(x.get(), nullptr, nullptr, nullptr, nullptr, false, 0.1, 1e-5, y.get(),
                                          nullptr, nullptr, ws, ex);
  }, "runningMean");

  const bool two[] = {true, false};
  aclBoolArray* short_mask = aclCreateBoolArray(two, 2);
  REQUIRE(short_mask != nullptr);
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormBackwardGetWorkspaceSize(y.get(), x.get(), nullptr, nullptr, nullptr, c3.get(), c3b.get(),
                                                  true, 1e-5, short_mask, gx.get(), nullptr, nullptr, ws, ex);
  }, "outputMask");
  CHECK(aclDestroyBoolArray(short_mask) == ACLNN_SUCCESS);
  const bool all[] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(all, 3);
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormBackwardGetWorkspaceSize(y.get(), x.get(), nullptr, nullptr, nullptr, c3.get(), c3b.get(),
                                                  true, 1e-5, mask, gx.get(), nullptr, nullptr, ws, ex);
  }, "gradWeight");
  CHECK(aclDestroyBoolArray(mask) == ACLNN_SUCCESS);
  CHECK(aclCreateBoolArray(nullptr, 2) == nullptr);
}
