// The loss (element-wise, margin) and embedding entries refuse bad arguments
// at GetWorkspaceSize time, naming the parameter, and queue nothing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_embedding.h"
#include "acl/aclnn_loss.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::make_tensor;
using acl_test::require_refused;
using acl_test::TensorPtr;

TEST_CASE("loss and embedding entries refuse bad arguments by name", "[validation][loss][embedding]") {
  acl_test::use_device0();
  DeviceBuffer a(1024), b(1024), c(1024), d(1024);
  const TensorPtr x = make_tensor(a.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr y = make_tensor(b.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr y5 = make_tensor(b.get(), {5}, ACL_FLOAT);
  const TensorPtr scalar = make_tensor(c.get(), {}, ACL_FLOAT);
  const TensorPtr t4 = make_tensor(d.get(), {4}, ACL_INT64);
  const TensorPtr t43f = make_tensor(d.get(), {4, 3}, ACL_FLOAT);
  const TensorPtr v3 = make_tensor(c.get(), {3}, ACL_FLOAT);
  const TensorPtr w52 = make_tensor(c.get(), {5, 2}, ACL_FLOAT);

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnMseLossGetWorkspaceSize(x.get(), y.get(), 5, scalar.get(), ws, ex);
  }, "reduction");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnMseLossGetWorkspaceSize(x.get(), y5.get(), 1, scalar.get(), ws, ex);
  }, "broadcast");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnSmoothL1LossGetWorkspaceSize(x.get(), y.get(), 1, -1.0f, scalar.get(), ws, ex);
  }, "beta");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnHuberLossGetWorkspaceSize(x.get(), y.get(), 0, 1.0, scalar.get(), ws, ex);
  }, "out");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBinaryCrossEntropyGetWorkspaceSize(x.get(), y.get(), y5.get(), 1, scalar.get(), ws, ex);
  }, "weight");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnMultiMarginLossGetWorkspaceSize(x.get(), t4.get(), 3, 1.0, nullptr, 1, scalar.get(), ws, ex);
  }, "p must be 1 or 2");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnMultilabelMarginLossGetWorkspaceSize(x.get(), t43f.get(), 1, scalar.get(), y.get(), ws, ex);
  }, "target");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnEmbeddingDenseBackwardGetWorkspaceSize(x.get(), v3.get(), 5, 0, false, w52.get(), ws, ex);
  }, "indices");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnEmbeddingRenormGetWorkspaceSize(v3.get(), t4.get(), 1.0, 2.0, ws, ex);
  }, "selfRef");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnEmbeddingBagGetWorkspaceSize(w52.get(), t4.get(), t4.get(), false, 3, false, nullptr, false, -1,
                                             x.get(), t4.get(), t4.get(), t4.get(), ws, ex);
  }, "mode");
}
