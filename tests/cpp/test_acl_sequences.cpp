// aclCreateIntArray / BoolArray / TensorList / ScalarList: each copies the
// entries it is given, refuses a null array of a non-zero size, and a scalar
// list (unlike a tensor list, whose null entries mean ':') refuses a null entry
// naming it, before it owns any of the others.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/aclnn_base.h"
#include "acl_test_support.h"
#include "emulator/acl_objects.h"

TEST_CASE("array and list constructors copy their entries and refuse a null array", "[runtime][sequences]") {
  const std::vector<int64_t> ints{3, -1, 7};
  aclIntArray* ia = aclCreateIntArray(ints.data(), ints.size());
  REQUIRE(ia != nullptr);
  CHECK(ia->values == ints);
  CHECK(aclDestroyIntArray(ia) == ACLNN_SUCCESS);

  const bool bools[] = {true, false, true};
  aclBoolArray* ba = aclCreateBoolArray(bools, 3);
  REQUIRE(ba != nullptr);
  CHECK(ba->values == std::vector<bool>{true, false, true});
  CHECK(aclDestroyBoolArray(ba) == ACLNN_SUCCESS);

  aclIntArray* empty = aclCreateIntArray(nullptr, 0);
  REQUIRE(empty != nullptr);
  CHECK(empty->values.empty());
  aclDestroyIntArray(empty);

  CHECK(aclCreateIntArray(nullptr, 2) == nullptr);
  CHECK(acl_test::recent_error().find("value is null") != std::string::npos);
  CHECK(aclCreateBoolArray(nullptr, 1) == nullptr);
  CHECK(acl_test::recent_error().find("value is null") != std::string::npos);
  CHECK(aclCreateTensorList(nullptr, 1) == nullptr);
  CHECK(acl_test::recent_error().find("value is null") != std::string::npos);
  CHECK(aclCreateScalarList(nullptr, 1) == nullptr);
  CHECK(acl_test::recent_error().find("value is null") != std::string::npos);
}

TEST_CASE("a tensor list keeps null entries; a scalar list refuses them naming the entry", "[runtime][sequences]") {
  const int64_t dims[] = {2};
  const int64_t strides[] = {1};
  float data[2] = {1, 2};
  const aclTensor* tensors[] = {
      aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, data), nullptr};
  aclTensorList* tl = aclCreateTensorList(tensors, 2);
  REQUIRE(tl != nullptr);
  REQUIRE(tl->tensors.size() == 2);
  CHECK(tl->tensors[0].get() == tensors[0]);
  CHECK(tl->tensors[1] == nullptr);
  CHECK(aclDestroyTensorList(tl) == ACLNN_SUCCESS);  // owns and destroys tensors[0]

  int64_t one = 1;
  int64_t two = 2;
  const aclScalar* scalars[] = {aclCreateScalar(&one, ACL_INT64), nullptr, aclCreateScalar(&two, ACL_INT64)};
  CHECK(aclCreateScalarList(scalars, 3) == nullptr);
  CHECK(acl_test::recent_error().find("entry 1 is a null aclScalar") != std::string::npos);
  // Refused before owning any: the caller still owns (and destroys) both.
  CHECK(aclDestroyScalar(scalars[0]) == ACLNN_SUCCESS);
  CHECK(aclDestroyScalar(scalars[2]) == ACLNN_SUCCESS);

  const aclScalar* good[] = {aclCreateScalar(&one, ACL_INT64), aclCreateScalar(&two, ACL_INT64)};
  aclScalarList* sl = aclCreateScalarList(good, 2);
  REQUIRE(sl != nullptr);
  REQUIRE(sl->scalars.size() == 2);
  CHECK(sl->scalars[0].get() == good[0]);
  CHECK(sl->scalars[1].get() == good[1]);
  CHECK(aclDestroyScalarList(sl) == ACLNN_SUCCESS);
}
