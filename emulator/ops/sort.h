// Task makers of the sort family (ops/table/sort.yaml): shapes, dtypes and k
// are checked on the host; the task sorts (kernels/sort/sort.h).
#pragma once

#include <functional>

#include "acl/acl_base.h"

namespace npu::emu {

std::function<void()> sort_task(const aclTensor* self, bool stable, int64_t dim, bool descending,
                                aclTensor* valuesOut, aclTensor* indicesOut);
std::function<void()> argsort_task(const aclTensor* self, int64_t dim, bool descending, aclTensor* out);
std::function<void()> topk_task(const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted,
                                aclTensor* valuesOut, aclTensor* indicesOut);

}  // namespace npu::emu
