// aclScalar operands read from raw bytes (kernels/core/scalar.h): any address
// is allowed, also one not aligned for the element type. UBSan found
// Scalar::from_raw dereferencing a misaligned double*.
#include <catch2/catch.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

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
