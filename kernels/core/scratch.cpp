#include "kernels/core/scratch.h"

#include <algorithm>

#include "kernels/core/bool_bytes.h"

namespace npu::kernels {

ScratchTensor::ScratchTensor(DType dtype, const Shape& sizes) {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  buffer_ = std::make_unique<unsigned char[]>(std::max<std::size_t>(n * model::itemsize(dtype), 1));
  view_ = TensorView{buffer_.get(), dtype, sizes, contiguous_strides(sizes)};
}

TensorView input_as(const TensorView& in, DType dtype, std::optional<ScratchTensor>& holder) {
  // Same dtype needs no copy, unless bool bytes other than 0/1 must be
  // normalized (bool_bytes.h): copy does that.
  if (in.dtype == dtype && !has_bool_bytes_above_one(in)) return in;
  holder.emplace(dtype, in.sizes);
  copy(holder->view(), in);
  return holder->view();
}

}  // namespace npu::kernels
