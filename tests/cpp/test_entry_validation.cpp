// Where the aclnn entries report errors: an argument that is wrong before any
// data is read (dtype, dims, k, shapes) fails ...GetWorkspaceSize and nothing
// is queued; an error that depends on tensor contents (an index value) fails
// the task, reported by the next synchronize and naming the op.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_factory.h"
#include "acl/aclnn_index.h"
#include "acl/aclnn_random.h"
#include "acl/aclnn_shape.h"
#include "acl/aclnn_sort.h"
#include "acl_test_support.h"

using acl_test::DeviceBuffer;
using acl_test::require_refused;
using acl_test::Tensor1D;

TEST_CASE("argument errors fail GetWorkspaceSize and queue nothing", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer floats(64), complexes(64), longs(64), out(64), out_long(64);
  const Tensor1D x(floats.get(), 3, ACL_FLOAT), z(complexes.get(), 3, ACL_COMPLEX64), n(longs.get(), 3, ACL_INT64);
  const Tensor1D fidx(floats.get(), 1, ACL_FLOAT), o(out.get(), 3, ACL_FLOAT), oz(out.get(), 3, ACL_COMPLEX64);
  const Tensor1D oi(out_long.get(), 3, ACL_INT64), o1(out.get(), 1, ACL_FLOAT), o5(out.get(), 5, ACL_FLOAT);
  const Tensor1D oi5(out_long.get(), 5, ACL_INT64);
  acl_test::KernelDelay delay(20000);  // a queued task would still be pending at the synchronize below

  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnSortGetWorkspaceSize(z.get(), true, 0, false, oz.get(), oi.get(), ws, ex);
  }, "complex");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnTopkGetWorkspaceSize(x.get(), 5, 0, true, true, o5.get(), oi5.get(), ws, ex);
  }, "out of range");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnIndexSelectGetWorkspaceSize(x.get(), 0, fidx.get(), o1.get(), ws, ex);
  }, "index");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnIndexSelectGetWorkspaceSize(x.get(), 3, n.get(), o.get(), ws, ex);
  }, "imension");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnTrilGetWorkspaceSize(x.get(), 0, o.get(), ws, ex);
  }, "2 dimensions");
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnInplaceNormalGetWorkspaceSize(n.get(), 0.0f, 1.0f, 0, 0, ws, ex);
  }, "floating point");
  const int64_t twice[] = {0, 0};
  aclIntArray* dims = aclCreateIntArray(twice, 2);
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnFlipGetWorkspaceSize(x.get(), dims, o.get(), ws, ex);
  }, "multiple times");
  aclDestroyIntArray(dims);
  const int64_t start_v = 0, end_v = 3, step_v = 1;
  aclScalar* start = aclCreateScalar(const_cast<int64_t*>(&start_v), ACL_INT64);
  aclScalar* end = aclCreateScalar(const_cast<int64_t*>(&end_v), ACL_INT64);
  aclScalar* step = aclCreateScalar(const_cast<int64_t*>(&step_v), ACL_INT64);
  require_refused([&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnArangeGetWorkspaceSize(start, end, step, oz.get(), ws, ex);
  }, "arange: unsupported dtype complex64");
  for (aclScalar* s : {start, end, step}) aclDestroyScalar(s);

  // Nothing was queued: the device synchronizes cleanly.
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
}

TEST_CASE("an index value out of range fails the task, reported at synchronize naming the op", "[validation]") {
  acl_test::use_device0();
  DeviceBuffer data(64), index(64), out(64);
  const int64_t bad = 7;
  REQUIRE(aclrtMemcpy(index.get(), sizeof(bad), &bad, sizeof(bad), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const Tensor1D x(data.get(), 3, ACL_FLOAT), i(index.get(), 1, ACL_INT64), o(out.get(), 1, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  // The arguments are fine: only the value 7 is wrong, which the host does not read.
  REQUIRE(aclnnIndexSelectGetWorkspaceSize(x.get(), 0, i.get(), o.get(), &ws, &ex) == ACL_SUCCESS);
  REQUIRE(aclnnIndexSelect(nullptr, ws, ex, nullptr) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeDevice() != ACL_SUCCESS);
  CHECK(acl_test::recent_error().find("aclnnIndexSelect") != std::string::npos);
  // Reported once; the stream runs on.
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
}

TEST_CASE("gather and scatter take an empty index of any dtype and rank, as PyTorch", "[validation][index]") {
  acl_test::use_device0();
  DeviceBuffer a(64), b(64), c(64), d(64);
  const Tensor1D self(a.get(), 5, ACL_FLOAT), out(b.get(), 5, ACL_FLOAT);
  // A [2, 0] float index on a 1-D self: no value is read, so neither its
  // dtype nor its rank is checked (gather: empty out; scatter: out = self).
  const int64_t dims[] = {2, 0}, strides[] = {0, 1};
  aclTensor* index = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, c.get());
  aclTensor* gathered = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, d.get());
  REQUIRE(acl_test::launch_fill(self, 2.5, nullptr) == ACL_SUCCESS);
  REQUIRE(acl_test::launch_fill(out, -1.0, nullptr) == ACL_SUCCESS);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  REQUIRE(aclnnGatherGetWorkspaceSize(self.get(), 0, index, gathered, &ws, &ex) == ACL_SUCCESS);
  REQUIRE(aclnnGather(nullptr, ws, ex, nullptr) == ACL_SUCCESS);
  REQUIRE(aclnnScatterGetWorkspaceSize(self.get(), 0, index, self.get(), 0, out.get(), &ws, &ex) == ACL_SUCCESS);
  REQUIRE(aclnnScatter(nullptr, ws, ex, nullptr) == ACL_SUCCESS);
  CHECK(acl_test::read_floats(b.get(), 5, nullptr) == std::vector<float>(5, 2.5f));
  // Still refused: an out of another dtype than self.
  const Tensor1D out_long(b.get(), 5, ACL_INT64);
  require_refused([&](uint64_t* w, aclOpExecutor** e) {
    return aclnnScatterGetWorkspaceSize(self.get(), 0, index, self.get(), 0, out_long.get(), w, e);
  }, "dtype");
  aclDestroyTensor(gathered);
  aclDestroyTensor(index);
}
