// A non-owning view of device memory as a strided tensor: what every kernel
// receives. Sizes and strides are in elements; `data` points at the view's
// first element (storage offset already applied).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_model/dtype.h"
#include "kernels/core/small_vector.h"

namespace npu::kernels {

using model::DType;
// Sizes or strides, in elements. Inline up to rank 8 (CANN's largest), so
// the views a small op makes allocate nothing.
using Shape = SmallVector<int64_t, 8>;

// Kernels report bad arguments with this; the emulator turns it into an ACL
// error carrying the op's name.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TensorView {
  void* data = nullptr;
  DType dtype = DType::Float32;
  Shape sizes;
  Shape strides;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const;
  bool is_contiguous() const;
  std::size_t itemsize() const { return model::itemsize(dtype); }
  template <class T>
  T* ptr() const { return static_cast<T*>(data); }
};

Shape contiguous_strides(const Shape& sizes);

// The shape both operands broadcast to, by NumPy rules; throws KernelError if
// they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b);

// A view of `t` expanded to `shape` (stride 0 on broadcast dims); throws
// KernelError if `t` does not broadcast to `shape`.
TensorView broadcast_to(const TensorView& t, const Shape& shape);

std::string shape_str(const Shape& shape);

}  // namespace npu::kernels
