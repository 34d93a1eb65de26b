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

TEST_CASE("a tensor description made after another was destroyed has only its own fields", "[runtime][sequences]") {
  // Destroyed descriptions are reused on the same thread: nothing of the
  // first (rank, strides, offset, dtype, format, storage dims, data) may
  // remain in the second, whichever arguments it leaves out.
  float data[64] = {};
  const int64_t big_dims[] = {2, 3, 4, 2};
  const int64_t big_strides[] = {24, 8, 2, 1};
  const int64_t big_storage[] = {2, 3, 4, 2, 1};
  const aclTensor* first =
      aclCreateTensor(big_dims, 4, ACL_INT64, big_strides, 5, ACL_FORMAT_NCHW, big_storage, 5, data + 8);
  REQUIRE(first != nullptr);
  REQUIRE(aclDestroyTensor(first) == ACLNN_SUCCESS);
  for (int round = 0; round < 2; ++round) {
    const int64_t dims[] = {6, 2};
    const int64_t storage[] = {12};
    const aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, storage, 1, data);
    REQUIRE(t != nullptr);
    CHECK(std::vector<int64_t>(t->view_dims.begin(), t->view_dims.end()) == std::vector<int64_t>{6, 2});
    CHECK(std::vector<int64_t>(t->strides.begin(), t->strides.end()) == std::vector<int64_t>{2, 1});
    CHECK(std::vector<int64_t>(t->storage_dims.begin(), t->storage_dims.end()) == std::vector<int64_t>{12});
    CHECK(t->offset == 0);
    CHECK(t->dtype == npu::model::DType::Float16);
    CHECK(t->format == ACL_FORMAT_ND);
    CHECK(t->data == data);
    REQUIRE(aclDestroyTensor(t) == ACLNN_SUCCESS);
    // The second round: a scalar-shaped description with no dims at all.
    const aclTensor* s = aclCreateTensor(nullptr, 0, ACL_BOOL, nullptr, 3, ACL_FORMAT_ND, nullptr, 0, nullptr);
    REQUIRE(s != nullptr);
    CHECK(s->view_dims.empty());
    CHECK(s->strides.empty());
    CHECK(s->storage_dims.empty());
    CHECK(s->offset == 3);
    CHECK(s->dtype == npu::model::DType::Bool);
    CHECK(s->data == nullptr);
    REQUIRE(aclDestroyTensor(s) == ACLNN_SUCCESS);
  }
}

TEST_CASE("aclCreateTensor refuses bad dims naming the array and index, and a description after a refusal has only its own fields",
          "[runtime][sequences]") {
  // The dims are checked while they are copied into a (possibly reused)
  // description: each bad array is named in the order viewDims, storageDims,
  // stride, and what a refused call had copied reaches no later description.
  float data[16] = {};
  const int64_t good[] = {2, 4};
  const int64_t negative[] = {2, -3};
  const int64_t overflowing[] = {int64_t{1} << 40, int64_t{1} << 40};
  const aclTensor* warm = aclCreateTensor(good, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, good, 2, data);
  REQUIRE(warm != nullptr);
  REQUIRE(aclDestroyTensor(warm) == ACLNN_SUCCESS);
  struct Case {
    const int64_t* view;
    const int64_t* strides;
    const int64_t* storage;
    const char* named;
  };
  const Case cases[] = {
      {negative, negative, negative, "viewDims[1] is -3"},
      {overflowing, nullptr, good, "viewDims: the element count overflows"},
      {good, negative, negative, "storageDims[1] is -3"},
      {good, nullptr, overflowing, "storageDims: the element count overflows"},
      {good, negative, good, "stride[1] is -3"},
  };
  for (const Case& c : cases) {
    INFO(c.named);
    CHECK(aclCreateTensor(c.view, 2, ACL_FLOAT, c.strides, 0, ACL_FORMAT_ND, c.storage, 2, data) == nullptr);
    CHECK(acl_test::recent_error().find(c.named) != std::string::npos);
    const int64_t dims[] = {3};
    const aclTensor* t = aclCreateTensor(dims, 1, ACL_INT32, nullptr, 1, ACL_FORMAT_ND, dims, 1, data);
    REQUIRE(t != nullptr);
    CHECK(std::vector<int64_t>(t->view_dims.begin(), t->view_dims.end()) == std::vector<int64_t>{3});
    CHECK(std::vector<int64_t>(t->strides.begin(), t->strides.end()) == std::vector<int64_t>{1});
    CHECK(std::vector<int64_t>(t->storage_dims.begin(), t->storage_dims.end()) == std::vector<int64_t>{3});
    CHECK(t->offset == 1);
    CHECK(t->dtype == npu::model::DType::Int32);
    REQUIRE(aclDestroyTensor(t) == ACLNN_SUCCESS);
  }
}
