// Indexing along one dim (index_select, gather, the scatter family) and
// flat indexing (take). Index tensors may be int64 or int32 with any strides.
// Out-of-range indices throw KernelError naming the index, dim and size;
// nothing is read or written out of bounds. Each op has a check_ function
// validating shapes and dtypes without touching data (prepare time); the op
// runs it too.
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out = self with `dim` replaced by the entries of the 1-D (or 0-D) `index`;
// out.size(dim) == index.numel(). Indices must be in [0, self.size(dim)).
void index_select(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index);
void check_index_select(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index);

// out[p] = self[p with coordinate `dim` replaced by index[p]]; out has
// index's shape, index.size(d) <= self.size(d) for d != dim, same rank.
void gather(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index);
void check_gather(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index);

// How scatter combines a src value with the value already at its target.
enum class ScatterReduce { None, Sum, Prod, Mean, Amax, Amin };

// out = self, then for every position p of index:
//   out[p with coordinate `dim` replaced by index[p]] (reduce)= src[p]
// src has at least index's extent in every dim (a 0-dim src is a scalar
// broadcast); index.size(d) <= self.size(d) for d != dim. out has self's
// shape and may alias it. With !include_self, targets hit by index start
// from their first src value instead of self's (torch.scatter_reduce).
// Mean divides by the number of contributions (floor division for
// integers); Amax/Amin propagate NaN. Positions along `dim` are applied in
// order, so repeated indices are deterministic; work is split only across
// positions that cannot collide.
void scatter(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
             const TensorView& src, ScatterReduce reduce, bool include_self);
void check_scatter(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
                   const TensorView& src, ScatterReduce reduce);

// out[p] = self.flatten()[index[p]] (row-major order of self, any strides);
// negative indices count from the end. out has index's shape.
void take(const TensorView& out, const TensorView& self, const TensorView& index);
void check_take(const TensorView& out, const TensorView& self, const TensorView& index);

// out = self, then out[..., index[i], ...] += alpha * source[..., i, ...]
// along `dim` for every entry i of the 1-D `index`, in entry order (repeated
// indices accumulate deterministically). source has self's shape except
// source.size(dim) == index.numel(); indices in [0, self.size(dim)). out has
// self's shape and may be self. Real dtypes but bool; alpha * source rounds
// to the dtype before the add (float16/bfloat16 too), as PyTorch's CPU does.
void index_add(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
               const TensorView& source, const Scalar& alpha);
void check_index_add(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
                     const TensorView& source);

}  // namespace npu::kernels
