// Task makers of the shape-and-copy family (ops/table/shape.yaml): each
// checks one call's shapes on the host and returns the kernel task
// (kernels/shape/shape_ops.h).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out = cat(tensors, dim) / stack(tensors, dim), inputs converted to out's dtype.
TaskBody cat_task(const aclTensorList* tensors, int64_t dim, aclTensor* out);
TaskBody stack_task(const aclTensorList* tensors, int64_t dim, aclTensor* out);

// out = self.flip(dims), x.roll(shifts, dims), self.repeat(repeats).
TaskBody flip_task(const aclTensor* self, const aclIntArray* dims, aclTensor* out);
TaskBody roll_task(const aclTensor* x, const aclIntArray* shifts, const aclIntArray* dims,
                   aclTensor* out);
TaskBody repeat_task(const aclTensor* self, const aclIntArray* repeats, aclTensor* out);

// out = self.tril(diagonal) (upper: triu); out may be self.
TaskBody triangle_task(bool upper, const aclTensor* self, int64_t diagonal, aclTensor* out);

}  // namespace npu::emu
