#include "kernels/pool/max_unpool.h"

#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

template <class T>
void unpool_planes(const pool::View5& x, const pool::View5& ix, const pool::View5& y) {
  const int64_t height = y.sizes[3], width = y.sizes[4];
  const int64_t plane = y.sizes[2] * height * width;
  const int64_t in_plane = x.sizes[2] * x.sizes[3] * x.sizes[4];
  // One task per plane: indices of one plane only address that plane.
  parallel_range(y.sizes[0] * y.sizes[1], grain_for(plane + in_plane), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / y.sizes[1], c = p % y.sizes[1];
      const T* src = x.ptr<T>() + n * x.strides[0] + c * x.strides[1];
      const int64_t* idx = ix.ptr<int64_t>() + n * ix.strides[0] + c * ix.strides[1];
      T* dst = y.ptr<T>() + n * y.strides[0] + c * y.strides[1];
      for (int64_t d = 0; d < y.sizes[2]; ++d) {
        for (int64_t h = 0; h < height; ++h) {
          for (int64_t w = 0; w < width; ++w) dst[pool::spatial_offset(y, d, h, w)] = T(0);
        }
      }
      for (int64_t d = 0; d < x.sizes[2]; ++d) {
        for (int64_t h = 0; h < x.sizes[3]; ++h) {
          for (int64_t w = 0; w < x.sizes[4]; ++w) {
            const int64_t at = idx[pool::spatial_offset(ix, d, h, w)];
            if (at < 0 || at >= plane) {
              throw KernelError("max_unpool: index " + std::to_string(at) + " is out of range for an output plane of " +
                                std::to_string(plane) + " elements");
            }
            dst[pool::spatial_offset(y, at / (height * width), (at / width) % height, at % width)] =
                src[pool::spatial_offset(x, d, h, w)];
          }
        }
      }
    }
  });
}

}  // namespace

void max_unpool(const TensorView& self, const TensorView& indices, const TensorView& out, int64_t rank) {
  if (self.sizes != indices.sizes) {
    throw KernelError("max_unpool: self " + shape_str(self.sizes) + " and indices " + shape_str(indices.sizes) +
                      " must have one shape");
  }
  if (indices.dtype != DType::Int64) throw KernelError("max_unpool: indices must be int64");
  if (self.dtype != out.dtype) throw KernelError("max_unpool: out must have self's dtype");
  if (out.dim() != self.dim() || (self.dim() != rank + 1 && self.dim() != rank + 2)) {
    throw KernelError("max_unpool: self and out must both be " + std::to_string(rank + 1) + "-d or " +
                      std::to_string(rank + 2) + "-d");
  }
  for (int64_t i = 0; i < self.dim() - rank; ++i) {
    if (out.sizes[i] != self.sizes[i]) throw KernelError("max_unpool: out must have self's leading dims");
  }
  const pool::View5 x = pool::as_5d(self, rank), ix = pool::as_5d(indices, rank), y = pool::as_5d(out, rank);
  visit_dtype(self.dtype, [&](auto tag) { unpool_planes<typename decltype(tag)::type>(x, ix, y); });
}

}  // namespace npu::kernels
