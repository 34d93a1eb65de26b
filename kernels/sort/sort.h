// Sorting along one dim. Order: ascending or descending by value, NaN
// greater than every number (last ascending, first descending), ties in
// original order, so results are always those of a stable sort and do not
// depend on threading. Not for complex tensors.
#pragma once

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// values (self's dtype) and indices (int64) have self's shape; either may
// be null (argsort). `stable` is accepted for API parity: every sort is stable.
void sort(const TensorView* values, const TensorView* indices, const TensorView& self, int64_t dim, bool descending,
          bool stable);
// sort's shape / dtype checks, without touching data (also run by sort).
void check_sort(const TensorView* values, const TensorView* indices, const TensorView& self, int64_t dim);

// The k largest (or smallest) entries along dim, in sorted order (also when
// !sorted; any order is allowed then) with their positions; values and
// indices have self's shape with size k along dim. 0 <= k <= self.size(dim).
void topk(const TensorView& values, const TensorView& indices, const TensorView& self, int64_t k, int64_t dim,
          bool largest, bool sorted);
// topk's shape / dtype / k checks, without touching data (also run by topk).
void check_topk(const TensorView& values, const TensorView& indices, const TensorView& self, int64_t k, int64_t dim);

}  // namespace npu::kernels
