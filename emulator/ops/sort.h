// Task makers of the sort family (ops/table/sort.yaml): shapes, dtypes and k
// are checked on the host; the task sorts (kernels/sort/sort.h).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody sort_task(const aclTensor* self, bool stable, int64_t dim, bool descending,
                   aclTensor* valuesOut, aclTensor* indicesOut);
TaskBody argsort_task(const aclTensor* self, int64_t dim, bool descending, aclTensor* out);
TaskBody topk_task(const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted,
                   aclTensor* valuesOut, aclTensor* indicesOut);

}  // namespace npu::emu
