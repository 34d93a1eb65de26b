#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/pointwise/binary_ops.h"

using namespace npu::kernels;

namespace {
template <class T>
TensorView view_of(std::vector<T>& v, DType dt, Shape sizes, Shape strides = {}) {
  return TensorView{v.data(), dt, sizes, strides.empty() ? contiguous_strides(sizes) : strides};
}
}  // namespace

TEST_CASE("copy transposes a strided view and converts dtype") {
  std::vector<float> src(6);
  std::iota(src.begin(), src.end(), 0.0f);  // 2x3 row-major
  std::vector<int64_t> dst(6, -1);
  copy(view_of(dst, DType::Int64, {3, 2}), view_of(src, DType::Float32, {3, 2}, {1, 3}));
  REQUIRE(dst == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("copy of a large tensor splits across workers and stays exact") {
  std::vector<int32_t> src(200000), dst(200000, 0);
  std::iota(src.begin(), src.end(), 7);
  // Reverse order through a negative-free strided view: every other element.
  copy(view_of(dst, DType::Int32, {100000}, {2}), view_of(src, DType::Int32, {100000}, {2}));
  for (int i = 0; i < 200000; i += 2) REQUIRE(dst[i] == src[i]);
  REQUIRE(dst[1] == 0);
}

TEST_CASE("copy of empty tensors without storage touches nothing", "[copy]") {
  // Empty tensors may carry null data pointers; a byte copy of them passed
  // null to memmove (undefined even for 0 bytes; UBSan, empty loss inputs).
  for (const Shape& sizes : {Shape{0}, Shape{3, 0}, Shape{0, 4}}) {
    const TensorView empty_f32{nullptr, DType::Float32, sizes, contiguous_strides(sizes)};
    const TensorView empty_f32_out{nullptr, DType::Float32, sizes, contiguous_strides(sizes)};
    const TensorView empty_i64_out{nullptr, DType::Int64, sizes, contiguous_strides(sizes)};
    REQUIRE_NOTHROW(copy(empty_f32_out, empty_f32));  // same dtype: the byte copy
    REQUIRE_NOTHROW(copy(empty_i64_out, empty_f32));  // a conversion
  }
}

TEST_CASE("add broadcasts and applies alpha") {
  std::vector<double> a{1, 2, 3}, b{10, 20}, out(6);
  add(view_of(out, DType::Float64, {2, 3}), view_of(a, DType::Float64, {1, 3}), view_of(b, DType::Float64, {2, 1}),
      Scalar::from_double(0.5));
  REQUIRE(out == std::vector<double>{6, 7, 8, 11, 12, 13});
}

TEST_CASE("mul of int8 wraps around like two's complement") {
  std::vector<int8_t> a{100, -3}, b{3, 5}, out(2);
  mul(view_of(out, DType::Int8, {2}), view_of(a, DType::Int8, {2}), view_of(b, DType::Int8, {2}));
  REQUIRE(out[0] == static_cast<int8_t>(300));
  REQUIRE(out[1] == -15);
}

TEST_CASE("fill writes every element of a strided view only") {
  std::vector<half> v(4, half(0.0f));
  fill(view_of(v, DType::Float16, {2}, {2}), Scalar::from_double(1.5));
  REQUIRE(static_cast<float>(v[0]) == 1.5f);
  REQUIRE(static_cast<float>(v[1]) == 0.0f);
  REQUIRE(static_cast<float>(v[2]) == 1.5f);
}

TEST_CASE("mismatched shapes are a KernelError, not a crash") {
  std::vector<float> a(3), b(4), out(3);
  REQUIRE_THROWS_AS(add(view_of(out, DType::Float32, {3}), view_of(a, DType::Float32, {3}),
                        view_of(b, DType::Float32, {4}), Scalar::from_int(1)),
                    KernelError);
}
