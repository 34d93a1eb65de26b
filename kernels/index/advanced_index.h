// Advanced (NumPy-style) indexing and the masked ops, including those whose
// output size depends on the data (masked_select, nonzero): they write into
// an output of the largest possible size and return how many leading
// entries are valid.
#pragma once

#include <optional>
#include <vector>

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// One entry per leading dim of self: an integer index tensor (int64/int32),
// a bool/uint8 mask (indexes as many dims as it has, like its nonzero()),
// or nullopt for a full slice (':'). Missing trailing entries are ':'.
using IndexList = std::vector<std::optional<TensorView>>;

// The result shape of self[indices], PyTorch's rules: index tensors
// broadcast together; their broadcast dims replace the indexed dims in place
// when those are adjacent, or lead the result otherwise. nullopt when a mask
// is present (the size then depends on the data). Throws KernelError for
// too many indices, bad dtypes, mask/self shape mismatches, non-broadcasting
// index shapes.
std::optional<Shape> index_result_shape(const Shape& self, const IndexList& indices);

// out = self[indices]. out must have the result shape (checked once masks
// are resolved); indices may be negative (count from the end).
void index(const TensorView& out, const TensorView& self, const IndexList& indices);

// self[indices] = values (or += with accumulate, where repeated indices all
// add up, in order). values broadcasts to the result shape and is converted
// to self's dtype.
void index_put(const TensorView& self, const IndexList& indices, const TensorView& values, bool accumulate);

// self[mask] = value, mask (bool/uint8) broadcast to self's shape.
void masked_fill(const TensorView& self, const TensorView& mask, const Scalar& value);

// Writes the elements of self where mask is true (both broadcast together),
// in row-major order, into the 1-D `out` (capacity: the broadcast numel);
// returns how many it wrote.
int64_t masked_select(const TensorView& out, const TensorView& self, const TensorView& mask);

// Writes the coordinates of self's non-zero elements, row-major order, as
// rows of the int64 `out` [capacity >= self.numel(), self.dim()]; returns the
// row count.
int64_t nonzero(const TensorView& out, const TensorView& self);

}  // namespace npu::kernels
