// Task makers of the indexing family (ops/table/index.yaml): each checks one
// call's shapes, dtypes and index structure on the host and returns the
// kernel task; index values (data) are checked when the task runs.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody index_select_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out);
// out = self with alpha * source added at the rows `index` names along dim.
TaskBody index_add_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* source,
                        const aclScalar* alpha, aclTensor* out);
TaskBody gather_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out);

// aclnnScatter / aclnnScatterValue: reduce 0 replace, 1 add, 2 multiply.
TaskBody scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src,
                      int64_t reduce, aclTensor* out);
TaskBody scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value,
                      int64_t reduce, aclTensor* out);
TaskBody scatter_add_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                          const aclTensor* src, aclTensor* out);
// aclnnScatterReduce: reduce 0 none, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean.
TaskBody scatter_reduce_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                             const aclTensor* src, int64_t reduce, bool include_self, aclTensor* out);

TaskBody index_task(const aclTensor* self, const aclTensorList* indices, aclTensor* out);
TaskBody index_put_task(aclTensor* self, const aclTensorList* indices, const aclTensor* values,
                        bool accumulate);
TaskBody masked_fill_task(aclTensor* self, const aclTensor* mask, const aclScalar* value);
// The same with value a one-element device tensor, read when the task runs.
TaskBody masked_fill_tensor_task(aclTensor* self, const aclTensor* mask, const aclTensor* value);
TaskBody take_task(const aclTensor* self, const aclTensor* index, aclTensor* out);

// Data-dependent results: the task narrows `out`'s view shape to what it
// wrote (see the family's header), so `out` must outlive the task's run.
TaskBody masked_select_task(const aclTensor* self, const aclTensor* mask, aclTensor* out);
TaskBody nonzero_task(const aclTensor* self, aclTensor* out);

}  // namespace npu::emu
