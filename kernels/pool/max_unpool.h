// Max unpooling: the inverse scatter of max pooling. out is zero except at
// the positions `indices` name (flat within each output plane, as max
// pooling gives them), which take self's values.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// self and indices: (C, *spatial) or (N, C, *spatial) of one shape; out has
// their leading dims and `rank` spatial dims of its own. indices must be
// int64 and each in [0, plane size of out); a bad one throws naming it. A
// position named twice takes the value that comes last in self's order.
void max_unpool(const TensorView& self, const TensorView& indices, const TensorView& out, int64_t rank);

}  // namespace npu::kernels
