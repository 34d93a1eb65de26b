// The layer norm, group norm and RMS norm entries: bad arguments are refused
// at GetWorkspaceSize time naming the parameter, and aclnnRmsNorm writes the
// outputs CANN declares `const aclTensor*` (yOut, rstdOut).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_norm.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::int_array;
using acl_test::IntArrayPtr;
using acl_test::make_tensor;
using acl_test::require_refused;
using acl_test::TensorPtr;

TEST_CASE("layer, group and RMS norm entries refuse bad arguments by name", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer a(1024), b(1024), c(1024), d(1024), e(1024);
  const TensorPtr x = make_tensor(a.get(), {4, 6});
  const TensorPtr y = make_tensor(b.get(), {4, 6});
  const TensorPtr w6 = make_tensor(c.get(), {6});
  const TensorPtr w5 = make_tensor(c.get(), {5});
  const TensorPtr stats4 = make_tensor(d.get(), {4, 1});
  const TensorPtr stats3 = make_tensor(d.get(), {3, 1});
  const TensorPtr stats4b = make_tensor(e.get(), {4, 1});
  const TensorPtr ints4 = make_tensor(a.get(), {4, 6}, ACL_INT32);
  const IntArrayPtr last = int_array({6});
  const IntArrayPtr wrong = int_array({4});

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLayerNormGetWorkspaceSize(x.get(), wrong.get(), nullptr, nullptr, 1e-5, y.get(), stats4.get(),
                                          stats4b.get(), ws, ex);
  }, "normalizedShape");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLayerNormGetWorkspaceSize(x.get(), last.get(), w5.get(), nullptr, 1e-5, y.get(), stats4.get(),
                                          stats4b.get(), ws, ex);
  }, "weightOptional");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLayerNormGetWorkspaceSize(x.get(), last.get(), nullptr, nullptr, 1e-5, y.get(), stats3.get(),
                                          stats4b.get(), ws, ex);
  }, "meanOutOptional");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLayerNormGetWorkspaceSize(ints4.get(), last.get(), nullptr, nullptr, 1e-5, y.get(), stats4.get(),
                                          stats4b.get(), ws, ex);
  }, "floating point");
  const bool all[] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(all, 3);
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnLayerNormBackwardGetWorkspaceSize(y.get(), x.get(), last.get(), stats4.get(), stats4b.get(), nullptr,
                                                  nullptr, mask, y.get(), nullptr, nullptr, ws, ex);
  }, "gradWeightOut");

  const TensorPtr g2 = make_tensor(d.get(), {4, 2});
  const TensorPtr g2b = make_tensor(e.get(), {4, 2});
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnGroupNormGetWorkspaceSize(x.get(), nullptr, nullptr, 4, 6, 1, 4, 1e-5, y.get(), g2.get(), g2b.get(),
                                          ws, ex);
  }, "group");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnGroupNormGetWorkspaceSize(x.get(), nullptr, nullptr, 4, 5, 1, 1, 1e-5, y.get(), g2.get(), g2b.get(),
                                          ws, ex);
  }, "C=5");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnGroupNormGetWorkspaceSize(x.get(), w5.get(), nullptr, 4, 6, 1, 2, 1e-5, y.get(), g2.get(), g2b.get(),
                                          ws, ex);
  }, "gamma");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnGroupNormBackwardGetWorkspaceSize(y.get(), x.get(), g2.get(), g2b.get(), nullptr, 4, 6, 1, 2, mask,
                                                  y.get(), nullptr, nullptr, ws, ex);
  }, "gradGammaOut");
  CHECK(aclDestroyBoolArray(mask) == ACLNN_SUCCESS);

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRmsNormGetWorkspaceSize(x.get(), w5.get(), 1e-6, y.get(), stats4.get(), ws, ex);
  }, "gamma");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRmsNormGetWorkspaceSize(x.get(), nullptr, 1e-6, y.get(), stats4.get(), ws, ex);
  }, "gamma");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnRmsNormGradGetWorkspaceSize(y.get(), x.get(), stats3.get(), w6.get(), y.get(), nullptr, ws, ex);
  }, "rstd");
}

TEST_CASE("aclnnRmsNorm writes the yOut and rstdOut CANN declares const", "[norm]") {
  acl_test::use_device0();
  acl_test::StreamHandle stream;
  const std::vector<float> xs = {1, 2, 2, 4, -3, 0, 0, 0};  // rows of 2 elements
  const std::vector<float> gs = {2, 0.5f};
  DeviceBuffer xb(xs.size() * 4), gb(gs.size() * 4), yb(xs.size() * 4), rb(4 * 4);
  REQUIRE(aclrtMemcpy(xb.get(), xb.bytes(), xs.data(), xb.bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(gb.get(), gb.bytes(), gs.data(), gb.bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const TensorPtr x = make_tensor(xb.get(), {4, 2});
  const TensorPtr gamma = make_tensor(gb.get(), {2});
  const TensorPtr y = make_tensor(yb.get(), {4, 2});
  const TensorPtr rstd = make_tensor(rb.get(), {4, 1});
  const double eps = 1e-6;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  REQUIRE(aclnnRmsNormGetWorkspaceSize(x.get(), gamma.get(), eps, y.get(), rstd.get(), &ws, &ex) == ACLNN_SUCCESS);
  REQUIRE(aclnnRmsNorm(nullptr, ws, ex, stream.get()) == ACLNN_SUCCESS);
  const std::vector<float> ys = acl_test::read_floats(yb.get(), xs.size(), stream.get());
  const std::vector<float> rs = acl_test::read_floats(rb.get(), 4, stream.get());
  for (int r = 0; r < 4; ++r) {
    const double ms = (xs[2 * r] * xs[2 * r] + xs[2 * r + 1] * xs[2 * r + 1]) / 2.0;
    const double expected_rstd = 1.0 / std::sqrt(ms + eps);
    CHECK(rs[r] == Approx(expected_rstd).epsilon(1e-6));
    for (int i = 0; i < 2; ++i) CHECK(ys[2 * r + i] == Approx(xs[2 * r + i] * expected_rstd * gs[i]).epsilon(1e-6));
  }
}
