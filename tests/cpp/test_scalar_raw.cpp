// aclScalar operands read from raw bytes (kernels/core/scalar.h): any address
// is allowed, also one not aligned for the element type. UBSan found
// Scalar::from_raw dereferencing a misaligned double*, and kernels reading an
// aclScalar's 8-byte value in place at a 4-byte aligned address.
#include <catch2/catch.hpp>

#include <complex>
#include <tuple>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_index.h"
#include "acl_test_support.h"
#include "kernels/core/scalar.h"

using npu::kernels::DType;
using npu::kernels::Scalar;

namespace {

// The bytes of `value` at `offset` into a buffer aligned for any type.
template <class T>
const void* placed_at(std::vector<std::max_align_t>& storage, std::size_t offset, const T& value) {
  storage.assign(2 + sizeof(T) / sizeof(std::max_align_t), std::max_align_t{});
  auto* bytes = reinterpret_cast<unsigned char*>(storage.data()) + offset;
  std::memcpy(bytes, &value, sizeof value);
  return bytes;
}

}  // namespace

TEST_CASE("Scalar::from_raw reads operands at any alignment", "[scalar]") {
  std::vector<std::max_align_t> storage;
  for (std::size_t offset = 0; offset < 8; ++offset) {
    INFO("offset " << offset);
    REQUIRE(Scalar::from_raw(placed_at(storage, offset, 0.1), DType::Float64).to<double>() == 0.1);
    REQUIRE(Scalar::from_raw(placed_at(storage, offset, -0.75f), DType::Float32).to<double>() == -0.75);
    const int64_t big = -(int64_t{1} << 40) - 7;  // needs all 8 bytes
    REQUIRE(Scalar::from_raw(placed_at(storage, offset, big), DType::Int64).to<int64_t>() == big);
    REQUIRE(Scalar::from_raw(placed_at(storage, offset, int32_t{-123456}), DType::Int32).to<int64_t>() == -123456);
    REQUIRE(Scalar::from_raw(placed_at(storage, offset, uint16_t{0x3c00}), DType::Float16).to<double>() == 1.0);
    const auto c = Scalar::from_raw(placed_at(storage, offset, std::complex<double>(1.5, -2.0)), DType::Complex128)
                       .to<std::complex<double>>();
    REQUIRE(c == std::complex<double>(1.5, -2.0));
    const auto cf = Scalar::from_raw(placed_at(storage, offset, std::complex<float>(0.5f, 4.0f)), DType::Complex64)
                        .to<std::complex<double>>();
    REQUIRE(cf == std::complex<double>(0.5, 4.0));
  }
}

TEST_CASE("aclnnScatterValue reads 8-byte scalar values in place", "[scalar]") {
  acl_test::use_device0();
  acl_test::DeviceBuffer self_mem(4 * sizeof(float)), index_mem(2 * sizeof(int64_t)), out_mem(4 * sizeof(float));
  const std::vector<float> zeros(4, 0.0f);
  const std::vector<int64_t> index{2, 0};
  REQUIRE(aclrtMemcpy(self_mem.get(), 16, zeros.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(index_mem.get(), 16, index.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const acl_test::Tensor1D self(self_mem.get(), 4), idx(index_mem.get(), 2, ACL_INT64), out(out_mem.get(), 4);
  int64_t seven = 7;
  double half = 0.5;
  for (const auto& [raw, dtype, want] : {std::tuple{static_cast<void*>(&seven), ACL_INT64, 7.0f},
                                         std::tuple{static_cast<void*>(&half), ACL_DOUBLE, 0.5f}}) {
    const std::unique_ptr<aclScalar, aclnnStatus (*)(const aclScalar*)> value(aclCreateScalar(raw, dtype),
                                                                              aclDestroyScalar);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    REQUIRE(aclnnScatterValueGetWorkspaceSize(self.get(), 0, idx.get(), value.get(), 0, out.get(), &ws, &ex) ==
            ACL_SUCCESS);
    REQUIRE(aclnnScatterValue(nullptr, ws, ex, nullptr) == ACL_SUCCESS);
    REQUIRE(acl_test::read_floats(out_mem.get(), 4, nullptr) == std::vector<float>{want, 0.0f, want, 0.0f});
  }
}
