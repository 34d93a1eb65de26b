// The foreach entries: one launch updates every tensor of a list
// (aclnnForeachMulScalarList with its aclScalarList, in place), and bad
// lists are refused at GetWorkspaceSize time naming the parameter and entry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_foreach.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::require_refused;
using acl_test::ScalarListPtr;
using acl_test::TensorListPtr;

namespace {

// A list of contiguous 1-D tensors of `sizes` elements over `buffers`; the list owns the descriptions.
TensorListPtr make_list(const std::vector<DeviceBuffer*>& buffers, const std::vector<int64_t>& sizes,
                  aclDataType dtype = ACL_FLOAT) {
  std::vector<const aclTensor*> tensors;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    int64_t n = sizes[i];
    tensors.push_back(aclCreateTensor(&n, 1, dtype, nullptr, 0, ACL_FORMAT_ND, &n, 1, buffers[i]->get()));
  }
  return TensorListPtr(aclCreateTensorList(tensors.data(), tensors.size()));
}

ScalarListPtr make_scalars(const std::vector<double>& values) {
  std::vector<const aclScalar*> scalars;
  for (double v : values) scalars.push_back(aclCreateScalar(&v, ACL_DOUBLE));
  return ScalarListPtr(aclCreateScalarList(scalars.data(), scalars.size()));
}

}  // namespace

TEST_CASE("aclnnForeachMulScalarList scales every tensor of a list in one launch", "[foreach]") {
  acl_test::use_device0();
  acl_test::StreamHandle stream;
  DeviceBuffer a(3 * sizeof(float)), b(2 * sizeof(float));
  const std::vector<float> a0{1, 2, 3}, b0{4, 5};
  REQUIRE(aclrtMemcpy(a.get(), a.bytes(), a0.data(), a.bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(b.get(), b.bytes(), b0.data(), b.bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const TensorListPtr x = make_list({&a, &b}, {3, 2});
  const TensorListPtr out = make_list({&a, &b}, {3, 2});
  const ScalarListPtr scalars = make_scalars({2.0, -0.5});
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  REQUIRE(aclnnForeachMulScalarListGetWorkspaceSize(x.get(), scalars.get(), out.get(), &ws, &ex) == ACL_SUCCESS);
  REQUIRE(aclnnForeachMulScalarList(nullptr, ws, ex, stream.get()) == ACL_SUCCESS);
  CHECK(acl_test::read_floats(a.get(), 3, stream.get()) == std::vector<float>{2, 4, 6});
  CHECK(acl_test::read_floats(b.get(), 2, stream.get()) == std::vector<float>{-2, -2.5f});
}

TEST_CASE("foreach entries refuse bad lists by name", "[foreach][validation]") {
  acl_test::use_device0();
  DeviceBuffer a(64), b(64), c(64);
  const TensorListPtr two = make_list({&a, &b}, {3, 2});
  const TensorListPtr one = make_list({&a}, {3});
  const TensorListPtr other_shape = make_list({&a, &c}, {3, 4});
  const TensorListPtr ints = make_list({&a, &b}, {3, 2}, ACL_INT32);
  const ScalarListPtr three = make_scalars({1.0, 2.0, 3.0});
  acl_test::ScalarHandle alpha(1.0);

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnForeachAddListV2GetWorkspaceSize(two.get(), one.get(), alpha.get(), two.get(), ws, ex);
  }, "x2 holds 1 tensors");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnForeachAddListV2GetWorkspaceSize(two.get(), other_shape.get(), alpha.get(), two.get(), ws, ex);
  }, "x2[1]");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnForeachSqrtGetWorkspaceSize(ints.get(), ints.get(), ws, ex);
  }, "out[0]");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnForeachDivScalarListGetWorkspaceSize(two.get(), three.get(), two.get(), ws, ex);
  }, "scalars holds 3");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnForeachMulScalarListGetWorkspaceSize(two.get(), nullptr, two.get(), ws, ex);
  }, "scalars");
}

TEST_CASE("aclCreateScalarList refuses a null entry", "[foreach][validation]") {
  double v = 1.0;
  aclScalar* s = aclCreateScalar(&v, ACL_DOUBLE);
  const aclScalar* entries[] = {s, nullptr};
  CHECK(aclCreateScalarList(entries, 2) == nullptr);
  aclDestroyScalar(s);
  CHECK(aclCreateScalarList(nullptr, 2) == nullptr);
}
