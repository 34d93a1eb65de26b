// Shape-and-copy ops: concatenation, stacking, flips, rolls, repeats and
// triangular masks. Outputs have any strides; unless stated, outputs must
// not overlap inputs. Shape helpers validate arguments without touching data,
// so callers can check at prepare time. Errors are KernelError.
#pragma once

#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Shape of cat(inputs, dim): inputs agree except along dim; 1-D empty
// inputs ([0]) are skipped, as PyTorch's legacy rule allows.
Shape cat_shape(const std::vector<Shape>& inputs, int64_t dim);
// Copies inputs (converted to out's dtype) into consecutive slices of out.
void cat(const TensorView& out, const std::vector<TensorView>& inputs, int64_t dim);

// Shape of stack(inputs, dim): all inputs share one shape; dim in [-(r+1), r].
Shape stack_shape(const std::vector<Shape>& inputs, int64_t dim);
void stack(const TensorView& out, const std::vector<TensorView>& inputs, int64_t dim);

// out = self reversed along each of `dims` (no repeats).
void flip(const TensorView& out, const TensorView& self, const std::vector<int64_t>& dims);

// out = self rolled by shifts[i] along dims[i]; with no dims, rolls the
// flattened tensor by shifts[0] (one shift required).
void roll(const TensorView& out, const TensorView& self, const std::vector<int64_t>& shifts,
          const std::vector<int64_t>& dims);

// Shape of self.repeat(repeats): repeats has at least self's rank, none negative.
Shape repeat_shape(const Shape& self, const std::vector<int64_t>& repeats);
void repeat(const TensorView& out, const TensorView& self, const std::vector<int64_t>& repeats);

// Lower / upper triangle of the last two dims (elements with
// col - row <= diagonal, resp. >= diagonal), zero elsewhere. out may be self.
void tril(const TensorView& out, const TensorView& self, int64_t diagonal);
void triu(const TensorView& out, const TensorView& self, int64_t diagonal);

}  // namespace npu::kernels
