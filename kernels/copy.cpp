#include "kernels/copy.h"

#include <cstring>

#include "kernels/elementwise.h"

namespace npu::kernels {

namespace {

// Same dtype, both contiguous: one memcpy, split across workers when large.
bool try_memcpy(const TensorView& dst, const TensorView& src) {
  if (dst.dtype != src.dtype || dst.sizes != src.sizes || !dst.is_contiguous() || !src.is_contiguous()) {
    return false;
  }
  const auto bytes = static_cast<int64_t>(dst.numel() * dst.itemsize());
  char* d = static_cast<char*>(dst.data);
  const char* s = static_cast<const char*>(src.data);
  constexpr int64_t kChunk = 1 << 20;
  if (bytes < 4 * kChunk) {
    std::memmove(d, s, bytes);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, bytes, kChunk), [&](const tbb::blocked_range<int64_t>& r) {
      std::memcpy(d + r.begin(), s + r.begin(), r.end() - r.begin());
    });
  }
  return true;
}

}  // namespace

void copy(const TensorView& dst, const TensorView& src) {
  const TensorView s = broadcast_to(src, dst.sizes);
  if (try_memcpy(dst, s)) return;
  visit_dtype(dst.dtype, [&](auto out_tag) {
    using Out = typename decltype(out_tag)::type;
    visit_dtype(s.dtype, [&](auto in_tag) {
      using In = typename decltype(in_tag)::type;
      unary_kernel<Out, In>(dst, s, [](const In& v) { return convert<Out>(v); });
    });
  });
}

void fill(const TensorView& dst, const Scalar& value) {
  visit_dtype(dst.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    nullary_kernel<T>(dst, [v] { return v; });
  });
}

}  // namespace npu::kernels
