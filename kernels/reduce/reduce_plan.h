// The geometry of a reduction: which input dims survive into the output and
// which are folded, after dropping size-1 dims and merging dims that are
// contiguous with each other. Reduction kernels iterate this, never the
// caller's shapes, so a contiguous input of any rank reduces as one 2-D problem.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/core/dims.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct ReducePlan {
  Shape kept_sizes;               // output index space, outermost first
  Shape kept_in;                  // input element strides along kept dims
  std::array<Shape, 2> kept_out;  // element strides of up to two outputs (0 when absent)
  Shape red_sizes;                // reduced index space, outermost first
  Shape red_in;                   // input element strides along reduced dims
  int64_t outputs = 1;
  int64_t reduce_size = 1;
};

// `outs` are the outputs as the caller holds them: either the input's rank
// with size 1 on reduced dims (keepdim) or only the kept dims; a null entry
// is an absent output. With `reorder` the reduced dims are visited in memory
// order (fastest for commutative folds); without it in index order, so a
// single reduced dim's linear position is its index (arg reductions).
// Throws KernelError when an output's shape does not fit the reduction.
ReducePlan make_reduce_plan(const TensorView& in, const DimMask& mask, const std::array<const TensorView*, 2>& outs,
                            bool reorder);

// Throws KernelError naming `op` when a reduced dim is empty: ops without an
// identity (max, min, argmax, inf-norms) cannot reduce nothing.
void require_nonempty_reduction(const char* op, const TensorView& in, const DimMask& mask);

}  // namespace npu::kernels
