// Task makers of the indexing family (ops/table/index.yaml): each checks one
// call's shapes, dtypes and index structure on the host and returns the
// kernel task; index values (data) are checked when the task runs.
#pragma once

#include <cstdint>
#include <functional>

#include "acl/acl_base.h"

namespace npu::emu {

std::function<void()> index_select_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out);
std::function<void()> gather_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out);

// aclnnScatter / aclnnScatterValue: reduce 0 replace, 1 add, 2 multiply.
std::function<void()> scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src,
                                   int64_t reduce, aclTensor* out);
std::function<void()> scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value,
                                   int64_t reduce, aclTensor* out);
std::function<void()> scatter_add_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                                       const aclTensor* src, aclTensor* out);
// aclnnScatterReduce: reduce 0 none, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean.
std::function<void()> scatter_reduce_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                                          const aclTensor* src, int64_t reduce, bool include_self, aclTensor* out);

std::function<void()> index_task(const aclTensor* self, const aclTensorList* indices, aclTensor* out);
std::function<void()> index_put_task(aclTensor* self, const aclTensorList* indices, const aclTensor* values,
                                     bool accumulate);
std::function<void()> masked_fill_task(aclTensor* self, const aclTensor* mask, const aclScalar* value);
std::function<void()> take_task(const aclTensor* self, const aclTensor* index, aclTensor* out);

// Data-dependent results: the task narrows `out`'s view shape to what it
// wrote (see the family's header), so `out` must outlive the task's run.
std::function<void()> masked_select_task(const aclTensor* self, const aclTensor* mask, aclTensor* out);
std::function<void()> nonzero_task(const aclTensor* self, aclTensor* out);

}  // namespace npu::emu
