// The random family's entries refuse bad arguments at GetWorkspaceSize, in
// the eager and the *Tensor (device generator state) forms alike, with a
// message that names the op once (guarded() puts it in front) and then the
// argument.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_random.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::Tensor1D;

namespace {

// Refused, and the message is exactly "<op>: <what>..." with <op> once.
template <class Prepare>
void require_refused_by(const std::string& op, const std::string& what, const Prepare& prepare) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  CHECK(prepare(&ws, &ex) != ACL_SUCCESS);
  CHECK(ex == nullptr);
  const std::string message = acl_test::recent_error();
  INFO(message);
  CHECK(message.rfind(op + ": " + what, 0) == 0);
  CHECK(message.find(op, op.size()) == std::string::npos);
}

}  // namespace

TEST_CASE("random entries name the op once and the bad argument, eager and *Tensor forms", "[validation][random]") {
  acl_test::use_device0();
  DeviceBuffer data(64), mask(64), words(64), float_words(64);
  const Tensor1D x(data.get(), 4, ACL_FLOAT), m(mask.get(), 4, ACL_BOOL), o(data.get(), 4, ACL_FLOAT);
  const Tensor1D seed(words.get(), 1, ACL_INT64), offset(words.get(), 1, ACL_INT64);
  const Tensor1D float_seed(float_words.get(), 1, ACL_FLOAT), two_offsets(words.get(), 2, ACL_INT64);
  const Tensor1D perm(data.get(), 4, ACL_INT64);

  using Ws = uint64_t*;
  using Ex = aclOpExecutor**;
  require_refused_by("aclnnInplaceUniform", "expects from <= to", [&](Ws ws, Ex ex) {
    return aclnnInplaceUniformGetWorkspaceSize(x.get(), 1.0, 0.0, 0, 0, ws, ex);
  });
  require_refused_by("aclnnInplaceUniformTensor", "expects from <= to", [&](Ws ws, Ex ex) {
    return aclnnInplaceUniformTensorGetWorkspaceSize(x.get(), 1.0, 0.0, seed.get(), offset.get(), 0, ws, ex);
  });
  require_refused_by("aclnnInplaceUniformTensor", "seedTensor must be a one-element int64 tensor", [&](Ws ws, Ex ex) {
    return aclnnInplaceUniformTensorGetWorkspaceSize(x.get(), 0.0, 1.0, float_seed.get(), offset.get(), 0, ws, ex);
  });
  require_refused_by("aclnnInplaceNormalTensor", "offsetTensor must be a one-element int64 tensor", [&](Ws ws, Ex ex) {
    return aclnnInplaceNormalTensorGetWorkspaceSize(x.get(), 0.0f, 1.0f, seed.get(), two_offsets.get(), 0, ws, ex);
  });
  require_refused_by("aclnnInplaceNormal", "expects std >= 0.0", [&](Ws ws, Ex ex) {
    return aclnnInplaceNormalGetWorkspaceSize(x.get(), 0.0f, -1.0f, 0, 0, ws, ex);
  });
  require_refused_by("aclnnInplaceRandomTensor", "expects from < to", [&](Ws ws, Ex ex) {
    return aclnnInplaceRandomTensorGetWorkspaceSize(x.get(), 5, 5, seed.get(), offset.get(), 0, ws, ex);
  });
  require_refused_by("aclnnInplaceExponential", "expects lambd > 0.0", [&](Ws ws, Ex ex) {
    return aclnnInplaceExponentialGetWorkspaceSize(x.get(), 0.0, 0, 0, ws, ex);
  });
  require_refused_by("aclnnDropout", "the probability must be in [0, 1]", [&](Ws ws, Ex ex) {
    return aclnnDropoutGetWorkspaceSize(x.get(), 2.0, 0, 0, o.get(), m.get(), ws, ex);
  });
  require_refused_by("aclnnRandperm", "n must be non-negative", [&](Ws ws, Ex ex) {
    return aclnnRandpermGetWorkspaceSize(-1, 0, 0, perm.get(), ws, ex);
  });

  // Nothing was queued.
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
}
