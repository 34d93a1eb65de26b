// Dimension arguments of shape-aware ops (reductions, scans, indexing, sort):
// wrapping negative dims, dim lists as masks, and the shapes they produce.
// Errors use PyTorch's wording so messages surface unchanged to users.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// One flag per input dim: true where the op reduces.
using DimMask = std::vector<bool>;

// Maps dim in [-rank, rank) to [0, rank); a 0-dim tensor accepts 0 and -1 as
// a scalar does in PyTorch (result 0). Throws KernelError when out of range.
int64_t wrap_dim(int64_t dim, int64_t rank);

// The mask of `dims` over a tensor of `rank` dims; an empty list means every
// dim. Throws KernelError for out-of-range or repeated dims.
DimMask dim_mask(const std::vector<int64_t>& dims, int64_t rank);

// The shape a reduction over `mask` produces: reduced dims become 1 with
// keepdim, or are dropped without it.
Shape reduced_shape(const Shape& sizes, const DimMask& mask, bool keepdim);

// `view` restricted to index `start`..`start+length` along `dim` (no copy).
TensorView narrow(const TensorView& view, int64_t dim, int64_t start, int64_t length);

// `view` at index `index` of `dim`, that dim removed (no copy).
TensorView select(const TensorView& view, int64_t dim, int64_t index);

// The element offset (in elements, from view.data) of the element with
// row-major linear index `linear`.
int64_t offset_of(int64_t linear, const Shape& sizes, const Shape& strides);

}  // namespace npu::kernels
