#include "kernels/core/dims.h"

#include <string>

namespace npu::kernels {

int64_t wrap_dim(int64_t dim, int64_t rank) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) {
    throw KernelError("Dimension out of range (expected to be in range of [" + std::to_string(-r) + ", " +
                      std::to_string(r - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + r : dim;
}

DimMask dim_mask(const std::vector<int64_t>& dims, int64_t rank) {
  DimMask mask(rank, dims.empty());
  for (const int64_t d : dims) {
    const int64_t w = wrap_dim(d, rank);
    if (rank == 0) continue;
    if (mask[w]) throw KernelError("dim " + std::to_string(w) + " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

Shape reduced_shape(const Shape& sizes, const DimMask& mask, bool keepdim) {
  Shape out;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) {
      out.push_back(sizes[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

TensorView narrow(const TensorView& view, int64_t dim, int64_t start, int64_t length) {
  TensorView out = view;
  out.data = static_cast<char*>(view.data) + start * view.strides[dim] * static_cast<int64_t>(view.itemsize());
  out.sizes[dim] = length;
  return out;
}

TensorView select(const TensorView& view, int64_t dim, int64_t index) {
  TensorView out = narrow(view, dim, index, 1);
  out.sizes.erase(out.sizes.begin() + dim);
  out.strides.erase(out.strides.begin() + dim);
  return out;
}

int64_t offset_of(int64_t linear, const Shape& sizes, const Shape& strides) {
  int64_t off = 0;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0 && linear > 0; --d) {
    off += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return off;
}

}  // namespace npu::kernels
