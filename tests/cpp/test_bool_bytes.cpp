// Kernels read a bool element as "byte != 0" (PyTorch's rule), also when the
// byte is 2..255, as in a uint8 tensor viewed as bool.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/core/bool_bytes.h"
#include "kernels/core/dims.h"
#include "kernels/pointwise/binary_ops.h"
#include "kernels/pointwise/ternary_ops.h"
#include "kernels/pointwise/unary_ops.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/scan.h"
#include "kernels/sort/sort.h"

using namespace npu::kernels;

namespace {

// Bytes of a bool tensor and what they mean.
const std::vector<uint8_t> kBytes = {0, 1, 2, 254, 255, 0, 128, 1};

std::vector<uint8_t> truth() {
  std::vector<uint8_t> t;
  for (const uint8_t b : kBytes) t.push_back(b != 0);
  return t;
}

TensorView bools(std::vector<uint8_t>& v, Shape sizes = {8}, Shape strides = {1}) {
  return TensorView{v.data(), DType::Bool, sizes, strides};
}

}  // namespace

TEST_CASE("normalized_bools copies only when a byte is above one, keeping strides", "[bool_bytes]") {
  std::vector<uint8_t> clean = {0, 1, 1, 0};
  std::optional<BoolBytes> holder;
  const TensorView same = normalized_bools(bools(clean, {4}), holder);
  CHECK(same.data == clean.data());
  CHECK(!holder);
  CHECK(!has_bool_bytes_above_one(bools(clean, {4})));

  std::vector<uint8_t> raw = kBytes;
  // Every other element, backwards: a negative stride over the whole span.
  const TensorView reversed{raw.data() + 7, DType::Bool, {4}, {-2}};
  CHECK(has_bool_bytes_above_one(reversed));
  const TensorView n = normalized_bools(reversed, holder);
  REQUIRE(holder);
  CHECK(n.strides == reversed.strides);
  const auto* p = static_cast<const uint8_t*>(n.data);
  for (int i = 0; i < 4; ++i) CHECK(p[-2 * i] == (kBytes[7 - 2 * i] != 0));
  CHECK(raw == kBytes);  // the input is never written
}

TEST_CASE("comparisons, logical and bitwise ops read any nonzero bool byte as true", "[bool_bytes]") {
  std::vector<uint8_t> a = kBytes, out(8);
  std::vector<uint8_t> ones(8, 1);
  const std::vector<uint8_t> want = truth();

  binary(BinaryFn::Eq, bools(out), bools(a), bools(ones));
  CHECK(out == want);
  binary(BinaryFn::BitwiseAnd, bools(out), bools(a), bools(ones));
  CHECK(out == want);
  binary(BinaryFn::LogicalXor, bools(out), bools(a), Operand(Scalar::from_int(0)));
  CHECK(out == want);
  unary(UnaryFn::LogicalNot, bools(out), bools(a));
  for (int i = 0; i < 8; ++i) CHECK(out[i] == !want[i]);
  unary(UnaryFn::BitwiseNot, bools(out), bools(a));
  for (int i = 0; i < 8; ++i) CHECK(out[i] == !want[i]);

  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, y(8);
  ternary(TernaryFn::Where, TensorView{y.data(), DType::Float32, {8}, {1}}, bools(a),
          TensorView{x.data(), DType::Float32, {8}, {1}}, Operand(Scalar::from_double(-1.0)));
  for (int i = 0; i < 8; ++i) CHECK(y[i] == (want[i] ? x[i] : -1.0f));
}

TEST_CASE("reductions, scans, casts and sort of bool bytes above one", "[bool_bytes]") {
  std::vector<uint8_t> a = kBytes;
  const std::vector<uint8_t> want = truth();
  int64_t count = 0;
  for (const uint8_t t : want) count += t;

  std::vector<int64_t> sum(1);
  reduce_sum(TensorView{sum.data(), DType::Int64, {}, {}}, bools(a), dim_mask({0}, 1));
  CHECK(sum[0] == count);

  std::vector<uint8_t> all(2), any(2), mx(2);
  const TensorView rows = bools(a, {2, 4}, {4, 1});
  reduce_all(TensorView{all.data(), DType::Bool, {2}, {1}}, rows, dim_mask({1}, 2));
  reduce_any(TensorView{any.data(), DType::Bool, {2}, {1}}, rows, dim_mask({1}, 2));
  reduce_amax(TensorView{mx.data(), DType::Bool, {2}, {1}}, rows, dim_mask({1}, 2));
  CHECK(all == std::vector<uint8_t>{0, 0});
  CHECK(any == std::vector<uint8_t>{1, 1});
  CHECK(mx == std::vector<uint8_t>{1, 1});

  std::vector<int64_t> cum(8);
  cumsum(TensorView{cum.data(), DType::Int64, {8}, {1}}, bools(a), 0);
  int64_t running = 0;
  for (int i = 0; i < 8; ++i) CHECK(cum[i] == (running += want[i]));

  std::vector<int32_t> ints(8);
  copy(TensorView{ints.data(), DType::Int32, {8}, {1}}, bools(a));
  for (int i = 0; i < 8; ++i) CHECK(ints[i] == want[i]);
  std::vector<uint8_t> copied(8);
  copy(bools(copied), bools(a));
  CHECK(copied == want);

  std::vector<uint8_t> sorted(8);
  std::vector<int64_t> idx(8);
  const TensorView sv = bools(sorted), iv{idx.data(), DType::Int64, {8}, {1}};
  sort(&sv, &iv, bools(a), 0, false, true);
  CHECK(sorted == std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 1, 1});
  CHECK(a == kBytes);
}
