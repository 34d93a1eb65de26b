// Private-format tensors at aclnn entries (emulator/format_scope.h): a whole
// private-format aclTensor is computed on through base-format scratch, its
// storage laid out by the spec's transform (kernels/format_transform) and
// padding zero; inputs are never written; anything that is not a whole
// tensor, or whose storage dims do not fit, is refused naming the entry, the
// parameter and the format; view() refuses private formats.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_binary.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_copy.h"
#include "acl/aclnn_unary.h"
#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/format_scope.h"
#include "kernels/format/format_transform.h"
#include "kernels/core/tensor_view.h"

using npu::model::Dims;
using npu::model::DType;
using npu::model::Format;
using npu::model::StorageDesc;

namespace {

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (const int64_t v : d) n *= v;
  return n;
}

std::string recent_error() {
  const char* msg = aclGetRecentErrMsg();
  return msg != nullptr ? msg : "";
}

// Logical float values that differ everywhere, in row-major order.
std::vector<float> values(const Dims& dims, float scale) {
  std::vector<float> v(numel(dims));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 97) - 11.5f;
  return v;
}

// The storage bytes of `logical` in `format` (padding zero), by the transform
// aclnnNpuFormatCast uses.
std::vector<unsigned char> laid_out(const StorageDesc& desc, const std::vector<float>& logical) {
  std::vector<unsigned char> storage(desc.storage_nbytes());
  npu::kernels::base_to_storage(desc, logical.data(), storage.data());
  return storage;
}

struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { REQUIRE(aclrtMalloc(&ptr, n, ACL_MEM_MALLOC_HUGE_FIRST) == 0); }
  ~DeviceBuffer() { aclrtFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void upload(const void* host) { REQUIRE(aclrtMemcpy(ptr, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0); }
  void fill(unsigned char byte) { upload(std::vector<unsigned char>(bytes, byte).data()); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> host(bytes);
    REQUIRE(aclrtMemcpy(host.data(), bytes, ptr, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    return host;
  }
};

struct TensorHandle {
  aclTensor* t;
  TensorHandle(const Dims& dims, const Dims& strides, int64_t offset, aclFormat format, const Dims& storage,
               void* data)
      : t(aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), offset, format, storage.data(),
                          storage.size(), data)) {
    REQUIRE(t != nullptr);
  }
  ~TensorHandle() { aclDestroyTensor(t); }
  TensorHandle(const TensorHandle&) = delete;
  TensorHandle& operator=(const TensorHandle&) = delete;
};

// A float tensor of logical shape `dims` held in `format`, uploaded from `logical`.
struct PrivateTensor {
  StorageDesc desc;
  DeviceBuffer mem;
  TensorHandle handle;
  PrivateTensor(const Dims& dims, Format format, const std::vector<float>& logical)
      : desc(npu::model::describe_storage(dims, DType::Float32, format)),
        mem(desc.storage_nbytes()),
        handle(dims, npu::kernels::contiguous_strides(dims).vec(), 0, static_cast<aclFormat>(format), desc.storage_sizes,
               mem.ptr) {
    mem.upload(laid_out(desc, logical).data());
  }
};

aclnnStatus add(const aclTensor* self, const aclTensor* other, aclTensor* out) {
  const float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(const_cast<float*>(&one), ACL_FLOAT);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspace, &executor);
  aclDestroyScalar(alpha);
  if (status != ACLNN_SUCCESS) return status;
  REQUIRE(aclnnAdd(nullptr, workspace, executor, nullptr) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  return status;
}

}  // namespace

TEST_CASE("private formats at an entry: aclnnAdd on FRACTAL_NZ and NC1HWC0 tensors, inputs untouched",
          "[formats][format_scope]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  for (const auto& [dims, format] : {std::pair{Dims{33, 20}, Format::FRACTAL_NZ},
                                     std::pair{Dims{2, 3, 17, 20}, Format::FRACTAL_NZ},
                                     std::pair{Dims{2, 19, 5, 3}, Format::NC1HWC0},
                                     std::pair{Dims{20, 6, 3, 3}, Format::FRACTAL_Z}}) {
    INFO(npu::model::format_label(format) << " " << npu::model::dims_str(dims));
    const std::vector<float> a = values(dims, 0.5f), b = values(dims, -0.25f);
    const PrivateTensor self(dims, format, a);
    DeviceBuffer other_mem(a.size() * 4);
    other_mem.upload(b.data());
    const TensorHandle other(dims, npu::kernels::contiguous_strides(dims).vec(), 0, ACL_FORMAT_ND, dims, other_mem.ptr);
    const std::vector<unsigned char> self_before = self.mem.download();
    // The output in the same format, its storage garbage: padding must come out zero.
    PrivateTensor out(dims, format, std::vector<float>(a.size()));
    out.mem.fill(0xAB);

    REQUIRE(add(self.handle.t, other.t, out.handle.t) == ACLNN_SUCCESS);
    std::vector<float> sum(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
    CHECK(out.mem.download() == laid_out(out.desc, sum));
    CHECK(self.mem.download() == self_before);
  }
}

TEST_CASE("private formats at an entry: in place (self is out) and a transposed NZ tensor", "[formats][format_scope]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{33, 20};
  const std::vector<float> a = values(dims, 0.5f);
  const PrivateTensor self(dims, Format::FRACTAL_NZ, a);
  // self + self.t().t(), written into self: one storage seen as input, input and output.
  const TensorHandle transposed(Dims{20, 33}, Dims{1, 20}, 0, ACL_FORMAT_FRACTAL_NZ, self.desc.storage_sizes,
                                self.mem.ptr);
  DeviceBuffer t_out_mem(a.size() * 4);
  const TensorHandle t_out(Dims{20, 33}, Dims{33, 1}, 0, ACL_FORMAT_ND, Dims{20, 33}, t_out_mem.ptr);
  // The transposed NZ tensor as an input: out = self.t() + self.t().
  REQUIRE(add(transposed.t, transposed.t, t_out.t) == ACLNN_SUCCESS);
  std::vector<float> expected_t(a.size());
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t j = 0; j < 33; ++j) expected_t[i * 33 + j] = 2 * a[j * 20 + i];
  }
  std::vector<unsigned char> expected_bytes(a.size() * 4);
  std::memcpy(expected_bytes.data(), expected_t.data(), expected_bytes.size());
  CHECK(t_out_mem.download() == expected_bytes);

  REQUIRE(add(self.handle.t, self.handle.t, self.handle.t) == ACLNN_SUCCESS);
  std::vector<float> doubled(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) doubled[i] = 2 * a[i];
  CHECK(self.mem.download() == laid_out(self.desc, doubled));
}

TEST_CASE("private formats at an entry: what is not a whole tensor is refused naming entry, parameter, format",
          "[formats][format_scope]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{33, 20};
  const PrivateTensor nz(dims, Format::FRACTAL_NZ, values(dims, 1.0f));
  DeviceBuffer nd_mem(numel(dims) * 4);
  const TensorHandle nd(dims, npu::kernels::contiguous_strides(dims).vec(), 0, ACL_FORMAT_ND, dims, nd_mem.ptr);
  recent_error();  // start clean

  const TensorHandle offset(Dims{32, 20}, Dims{20, 1}, 20, ACL_FORMAT_FRACTAL_NZ, nz.desc.storage_sizes, nz.mem.ptr);
  const Dims rows{32, 20};
  const TensorHandle nd_rows(rows, npu::kernels::contiguous_strides(rows).vec(), 0, ACL_FORMAT_ND, rows, nd_mem.ptr);
  CHECK(add(offset.t, nd_rows.t, nd_rows.t) == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("aclnnAdd: self in FRACTAL_NZ (29) must describe a whole tensor") &&
                                 Catch::Contains("offset 20"));

  const TensorHandle strided(Dims{17, 20}, Dims{40, 1}, 0, ACL_FORMAT_FRACTAL_NZ, nz.desc.storage_sizes, nz.mem.ptr);
  const Dims half{17, 20};
  const TensorHandle nd_half(half, npu::kernels::contiguous_strides(half).vec(), 0, ACL_FORMAT_ND, half, nd_mem.ptr);
  CHECK(add(nd_half.t, strided.t, nd_half.t) == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("aclnnAdd: other in FRACTAL_NZ (29) must describe a whole tensor"));

  const TensorHandle bad_storage(dims, Dims{20, 1}, 0, ACL_FORMAT_FRACTAL_NZ, Dims{2, 3, 16, 8}, nz.mem.ptr);
  CHECK(add(nd.t, nd.t, bad_storage.t) == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("aclnnAdd: out in FRACTAL_NZ (29)") &&
                                 Catch::Contains("must have storage dims [2, 3, 16, 16]"));

  // The copy family's entries are the table's too: a part of a private
  // tensor is refused by aclnnInplaceCopy as well, naming its parameter.
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  CHECK(aclnnInplaceCopyGetWorkspaceSize(nd_rows.t, offset.t, &workspace, &executor) == ACLNN_ERR_PARAM_INVALID);
  CHECK(executor == nullptr);
  CHECK_THAT(recent_error(), Catch::Contains("aclnnInplaceCopy: src in FRACTAL_NZ (29) must describe a whole tensor"));
}

TEST_CASE("private formats at an entry: aclnnInplaceCopy and the fills read and write whole NZ tensors",
          "[formats][format_scope]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{33, 20};
  const std::vector<float> a = values(dims, 0.5f);
  const PrivateTensor nz(dims, Format::FRACTAL_NZ, a);
  const std::vector<unsigned char> nz_before = nz.mem.download();
  DeviceBuffer nd_mem(a.size() * 4);
  nd_mem.fill(0xAB);
  const TensorHandle nd(dims, npu::kernels::contiguous_strides(dims).vec(), 0, ACL_FORMAT_ND, dims, nd_mem.ptr);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  // Launches what the ...GetWorkspaceSize call (already made) prepared.
  auto run = [&](aclnnStatus prepared, auto launch) {
    REQUIRE(prepared == ACLNN_SUCCESS);
    REQUIRE(launch(nullptr, workspace, executor, nullptr) == ACLNN_SUCCESS);
    REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  };

  // NZ -> ND: the logical values, the NZ source untouched.
  run(aclnnInplaceCopyGetWorkspaceSize(nd.t, nz.handle.t, &workspace, &executor), aclnnInplaceCopy);
  std::vector<unsigned char> expected(a.size() * 4);
  std::memcpy(expected.data(), a.data(), expected.size());
  CHECK(nd_mem.download() == expected);
  CHECK(nz.mem.download() == nz_before);

  // ND -> NZ (storage garbage first): laid out in NZ, padding zero.
  const std::vector<float> b = values(dims, -0.25f);
  nd_mem.upload(b.data());
  PrivateTensor target(dims, Format::FRACTAL_NZ, std::vector<float>(a.size()));
  target.mem.fill(0xAB);
  run(aclnnInplaceCopyGetWorkspaceSize(target.handle.t, nd.t, &workspace, &executor), aclnnInplaceCopy);
  CHECK(target.mem.download() == laid_out(target.desc, b));

  // Zero and fill of a whole NZ tensor: every logical element, padding zero.
  target.mem.fill(0xAB);
  run(aclnnInplaceZeroGetWorkspaceSize(target.handle.t, &workspace, &executor), aclnnInplaceZero);
  CHECK(target.mem.download() == laid_out(target.desc, std::vector<float>(a.size(), 0.0f)));
  const float three = 3.0f;
  aclScalar* value = aclCreateScalar(const_cast<float*>(&three), ACL_FLOAT);
  target.mem.fill(0xAB);
  run(aclnnInplaceFillScalarGetWorkspaceSize(target.handle.t, value, &workspace, &executor),
      aclnnInplaceFillScalar);
  aclDestroyScalar(value);
  CHECK(target.mem.download() == laid_out(target.desc, std::vector<float>(a.size(), 3.0f)));
}

TEST_CASE("aclTensor::view() refuses a private format and reads a base format", "[formats][format_scope]") {
  std::vector<float> host(33 * 20);  // view() refuses a null data address (the tensor has elements)
  aclTensor t;
  t.data = host.data();
  t.view_dims = {33, 20};
  t.strides = {20, 1};
  t.storage_dims = {2, 3, 16, 16};
  t.format = ACL_FORMAT_FRACTAL_NZ;
  for (const aclFormat f : {ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z}) {
    t.format = f;
    CHECK_THROWS_AS(t.view(), npu::emu::AclError);
  }
  try {
    t.format = ACL_FORMAT_NC1HWC0;
    (void)t.view();
  } catch (const npu::emu::AclError& e) {
    CHECK(e.code() == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(e.what(), Catch::Contains("NC1HWC0 (3)"));
  }
  t.format = ACL_FORMAT_ND;
  t.storage_dims = {33, 20};
  CHECK(t.view().sizes == Dims{33, 20});
  t.format = ACL_FORMAT_NCHW;
  CHECK_NOTHROW(t.view());
}

TEST_CASE("FormatScope: substitutes are base-format scratch; the task fills inputs and lays out outputs only",
          "[formats][format_scope]") {
  const Dims dims{3, 19, 4, 5};
  const StorageDesc desc = npu::model::describe_storage(dims, DType::Float32, Format::NC1HWC0);
  const std::vector<float> a = values(dims, 2.0f);
  std::vector<unsigned char> in_storage = laid_out(desc, a);
  std::vector<unsigned char> out_storage(desc.storage_nbytes(), 0xCD);
  const std::vector<unsigned char> in_before = in_storage;
  auto make = [&](void* data) {
    aclTensor t;
    t.view_dims = dims;
    t.strides = npu::kernels::contiguous_strides(dims);
    t.format = ACL_FORMAT_NC1HWC0;
    t.storage_dims = desc.storage_sizes;
    t.data = data;
    return t;
  };
  const aclTensor in = make(in_storage.data());
  aclTensor out = make(out_storage.data());

  npu::emu::FormatScope scope("aclnnTest");
  const aclTensor* in_sub = scope.substitute(npu::emu::TensorIn{&in, "self"});
  aclTensor* out_sub = scope.substitute(npu::emu::TensorOut{&out, "out"});
  REQUIRE(in_sub != &in);
  REQUIRE(out_sub != &out);
  CHECK(in_sub->format == ACL_FORMAT_NCHW);
  CHECK(in_sub->view_dims == dims);
  CHECK(in_sub->storage_dims == dims);
  CHECK(in_sub->data != in.data);
  // Opted out: the entry takes the format itself.
  CHECK(scope.substitute(npu::emu::TensorIn{&in, "self", true}) == &in);
  CHECK(scope.substitute(npu::emu::TensorIn{nullptr, "other"}) == nullptr);

  const auto in_view = in_sub->view(), out_view = out_sub->view();
  auto task = scope.wrap([in_view, out_view] {
    const float* src = in_view.ptr<float>();
    float* dst = out_view.ptr<float>();
    for (int64_t i = 0; i < in_view.numel(); ++i) dst[i] = -src[i];
  });
  CHECK(out_storage == std::vector<unsigned char>(desc.storage_nbytes(), 0xCD));  // nothing moves before the task
  task();
  std::vector<float> negated(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) negated[i] = -a[i];
  CHECK(out_storage == laid_out(desc, negated));
  CHECK(in_storage == in_before);

  // In place: an input and an output over one storage share one scratch.
  npu::emu::FormatScope inplace("aclnnTest");
  aclTensor self = make(in_storage.data());
  const aclTensor* self_in = inplace.substitute(npu::emu::TensorIn{&self, "self"});
  aclTensor* self_out = inplace.substitute(npu::emu::TensorOut{&self, "out"});
  CHECK(self_in->data == self_out->data);
  const auto v = self_out->view();
  inplace.wrap([v] {
    float* p = v.ptr<float>();
    for (int64_t i = 0; i < v.numel(); ++i) p[i] = -p[i];
  })();
  CHECK(in_storage == laid_out(desc, negated));
}

TEST_CASE("FormatScope: a tensor list gets a copy with private-format members substituted", "[formats][format_scope]") {
  const Dims dims{33, 20};
  const StorageDesc desc = npu::model::describe_storage(dims, DType::Float32, Format::FRACTAL_NZ);
  const std::vector<float> a = values(dims, 1.5f);
  std::vector<unsigned char> nz_storage = laid_out(desc, a);
  std::vector<float> plain(a.size(), 3.0f);
  const Dims strides = npu::kernels::contiguous_strides(dims).vec();
  aclTensor* members[] = {
      aclCreateTensor(dims.data(), 2, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, dims.data(), 2, plain.data()),
      aclCreateTensor(dims.data(), 2, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_FRACTAL_NZ,
                      desc.storage_sizes.data(), desc.storage_sizes.size(), nz_storage.data()),
      nullptr};
  aclTensorList* list = aclCreateTensorList(members, 3);
  REQUIRE(list != nullptr);
  npu::emu::FormatScope scope("aclnnTest");
  const aclTensorList* sub = scope.substitute(npu::emu::ListIn{list, "tensors"});
  REQUIRE(sub != list);
  REQUIRE(sub->tensors.size() == 3);
  CHECK(sub->tensors[0]->data == plain.data());
  CHECK(sub->tensors[1]->format == ACL_FORMAT_ND);
  CHECK(sub->tensors[1]->data != nz_storage.data());
  CHECK(sub->tensors[2] == nullptr);
  const auto view = sub->tensors[1]->view();
  std::vector<float> read(a.size());
  scope.wrap([view, &read] { std::memcpy(read.data(), view.data, read.size() * 4); })();
  CHECK(read == a);
  CHECK(nz_storage == laid_out(desc, a));
  aclDestroyTensorList(list);

  // A member that is not a whole tensor is refused, named by its index.
  aclTensor* partial[] = {aclCreateTensor(dims.data(), 2, ACL_FLOAT, strides.data(), 4, ACL_FORMAT_FRACTAL_NZ,
                                          desc.storage_sizes.data(), desc.storage_sizes.size(), nz_storage.data())};
  aclTensorList* bad = aclCreateTensorList(partial, 1);
  npu::emu::FormatScope refusing("aclnnCat");
  try {
    refusing.substitute(npu::emu::ListIn{bad, "tensors"});
    FAIL("a partial NZ member was accepted");
  } catch (const npu::emu::AclError& e) {
    CHECK(e.code() == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(e.what(), Catch::Contains("aclnnCat: tensors[0] in FRACTAL_NZ (29) must describe a whole tensor"));
  }
  aclDestroyTensorList(bad);
}
