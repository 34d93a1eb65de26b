// SmallVector (kernels::Shape): inline up to its capacity, the heap beyond,
// and the std::vector behaviour the kernels rely on on both sides of that edge.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/core/small_vector.h"
#include "kernels/core/tensor_view.h"

using npu::kernels::Shape;
using npu::kernels::SmallVector;

namespace {

using Small = SmallVector<int64_t, 4>;

bool same(const Small& s, const std::vector<int64_t>& v) { return std::vector<int64_t>(s.begin(), s.end()) == v; }

bool stored_inside(const Small& s) {
  const auto* object = reinterpret_cast<const unsigned char*>(&s);
  const auto* data = reinterpret_cast<const unsigned char*>(s.data());
  return data >= object && data < object + sizeof(Small);
}

}  // namespace

TEST_CASE("SmallVector edits like std::vector below and above its inline capacity", "[small_vector]") {
  // Each length crosses the inline capacity (4) at a different step.
  for (int64_t n : {0, 3, 4, 5, 11}) {
    Small s;
    std::vector<int64_t> v;
    for (int64_t i = 0; i < n; ++i) {
      s.push_back(i * 10);
      v.push_back(i * 10);
    }
    CHECK(same(s, v));
    CHECK(stored_inside(s) == (n <= 4));
    s.insert(s.begin(), -1);
    v.insert(v.begin(), -1);
    s.insert(s.begin() + 1, {7, 8});
    v.insert(v.begin() + 1, {7, 8});
    s.insert(s.end(), s.begin(), s.begin() + 2);  // a range from the vector itself
    const std::vector<int64_t> head(v.begin(), v.begin() + 2);
    v.insert(v.end(), head.begin(), head.end());
    CHECK(same(s, v));
    s.erase(s.begin() + 1);
    v.erase(v.begin() + 1);
    s.erase(s.begin(), s.begin() + 2);
    v.erase(v.begin(), v.begin() + 2);
    s.push_back(s.front());  // an element of the vector itself, maybe while growing
    v.push_back(v.front());
    CHECK(same(s, v));
    s.resize(static_cast<std::size_t>(n) + 2, 9);
    v.resize(static_cast<std::size_t>(n) + 2, 9);
    CHECK(same(s, v));
    s.assign(3, 1);
    v.assign(3, 1);
    CHECK(same(s, v));
  }
}

TEST_CASE("SmallVector copies and moves inline and heap contents", "[small_vector]") {
  for (int64_t n : {2, 9}) {
    Small s;
    for (int64_t i = 0; i < n; ++i) s.push_back(i);
    const Small copy = s;
    CHECK(copy == s);
    Small moved = std::move(s);
    CHECK(moved == copy);
    CHECK(s.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty and usable
    s.push_back(42);
    CHECK(same(s, {42}));
    Small assigned{5, 6, 7, 8, 9, 10};
    assigned = copy;
    CHECK(assigned == copy);
    assigned = std::move(moved);
    CHECK(assigned == copy);
    CHECK(Small(copy.vec()) == copy);
  }
  CHECK(Small{1, 2} < Small{1, 3});
  CHECK(Small{1, 2} != Small{1, 2, 0});
}

TEST_CASE("Shape holds a rank-8 tensor's sizes inside the object", "[small_vector]") {
  const Shape sizes{2, 3, 4, 5, 6, 7, 8, 9};
  const auto* object = reinterpret_cast<const unsigned char*>(&sizes);
  const auto* data = reinterpret_cast<const unsigned char*>(sizes.data());
  CHECK((data >= object && data < object + sizeof(Shape)));
  CHECK(npu::kernels::contiguous_strides(sizes) == Shape{181440, 60480, 15120, 3024, 504, 72, 9, 1});
}
