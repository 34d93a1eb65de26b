#include "kernels/copy/copy.h"

#include <cstring>

#include "kernels/copy/convert_run.h"
#include "kernels/core/bool_bytes.h"
#include "kernels/core/elementwise.h"

namespace npu::kernels {

namespace {

// Elements per task of a parallel contiguous copy: large enough that a task
// moves ~1 MB and scheduling costs vanish, small enough to balance 2+ cores.
constexpr int64_t kContiguousChunkBytes = 1 << 20;

// Both dense and of one shape: the whole copy is one flat run.
bool dense_same_shape(const TensorView& dst, const TensorView& src) {
  return dst.sizes == src.sizes && dst.is_contiguous() && src.is_contiguous();
}

// Same dtype, both contiguous: one memcpy, split across workers when large.
void copy_bytes(char* d, const char* s, int64_t bytes) {
  // Empty tensors may have no storage: memmove of null pointers is undefined
  // even for 0 bytes (UBSan found empty loss inputs doing it).
  if (bytes == 0) return;
  if (bytes < 4 * kContiguousChunkBytes) {
    std::memmove(d, s, bytes);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, bytes, kContiguousChunkBytes),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      std::memcpy(d + r.begin(), s + r.begin(), r.end() - r.begin());
                    });
}

// Dense conversion: convert_run over chunks of the flat range, in parallel
// when there is enough work.
template <class Out, class In>
void convert_dense(Out* out, const In* in, int64_t n) {
  constexpr int64_t item = static_cast<int64_t>(sizeof(Out) > sizeof(In) ? sizeof(Out) : sizeof(In));
  constexpr int64_t chunk = kContiguousChunkBytes / item;
  if (n < 2 * chunk) {
    convert_run(out, in, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, chunk), [&](const tbb::blocked_range<int64_t>& r) {
    convert_run(out + r.begin(), in + r.begin(), r.end() - r.begin());
  });
}

// Any strides: the strided loop hands over 1-D runs; runs contiguous in both
// operands take the vectorized converter, the rest go element by element.
template <class Out, class In>
void convert_strided(const TensorView& dst, const TensorView& src) {
  const auto ops = make_operands<2>({&dst, &src});
  strided_loop<2>(ops, [](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      convert_run(reinterpret_cast<Out*>(p[0]), reinterpret_cast<const In*>(p[1]), n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = convert<Out>(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  });
}

}  // namespace

void copy(const TensorView& dst, const TensorView& src) {
  std::optional<BoolBytes> bools;  // a bool source reads "byte != 0"
  const TensorView s = broadcast_to(normalized_bools(src, bools), dst.sizes);
  const bool dense = dense_same_shape(dst, s);
  if (dense && dst.dtype == s.dtype) {
    copy_bytes(static_cast<char*>(dst.data), static_cast<const char*>(s.data),
               static_cast<int64_t>(dst.numel() * dst.itemsize()));
    return;
  }
  visit_dtype(dst.dtype, [&](auto out_tag) {
    using Out = typename decltype(out_tag)::type;
    visit_dtype(s.dtype, [&](auto in_tag) {
      using In = typename decltype(in_tag)::type;
      if (dense) {
        convert_dense(dst.ptr<Out>(), s.ptr<const In>(), static_cast<int64_t>(dst.numel()));
      } else {
        convert_strided<Out, In>(dst, s);
      }
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
