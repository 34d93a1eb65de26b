#include "kernels/core/bool_bytes.h"

#include <algorithm>
#include <utility>

namespace npu::kernels {

namespace {

// First and one-past-last byte offset (from in.data) any element occupies.
std::pair<int64_t, int64_t> byte_span(const TensorView& in) {
  int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < in.sizes.size(); ++d) {
    if (in.sizes[d] == 0) return {0, 0};
    const int64_t reach = (in.sizes[d] - 1) * in.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi + 1};
}

bool any_above_one(const uint8_t* p, int64_t n) {
  // OR-ing all bytes first keeps the loop branch-free, so it vectorizes.
  uint8_t bits = 0;
  for (int64_t i = 0; i < n; ++i) bits |= p[i];
  return (bits & 0xfe) != 0;
}

}  // namespace

bool has_bool_bytes_above_one(const TensorView& in) {
  if (in.dtype != DType::Bool) return false;
  const auto [lo, hi] = byte_span(in);
  return any_above_one(static_cast<const uint8_t*>(in.data) + lo, hi - lo);
}

TensorView normalized_bools(const TensorView& in, std::optional<BoolBytes>& holder) {
  if (!has_bool_bytes_above_one(in)) return in;
  const auto [lo, hi] = byte_span(in);
  const uint8_t* base = static_cast<const uint8_t*>(in.data) + lo;
  holder.emplace(hi - lo);
  uint8_t* out = holder->data();
  std::transform(base, base + (hi - lo), out, [](uint8_t b) { return static_cast<uint8_t>(b != 0); });
  TensorView view = in;
  view.data = out - lo;
  return view;
}

}  // namespace npu::kernels
