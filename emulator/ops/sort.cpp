// aclnn entries of the sort family (kernels/sort/sort.h); shapes, dtypes and k
// are checked at GetWorkspaceSize time.
#include "acl/aclnn_sort.h"
#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/sort/sort.h"

using npu::emu::prepare_op;
using npu::emu::require_views;
using npu::emu::task;

namespace kn = npu::kernels;

extern "C" {

aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor* self, bool stable, int64_t dim, bool descending,
                                      aclTensor* valuesOut, aclTensor* indicesOut, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return prepare_op("aclnnSort", workspaceSize, executor, [&] {
    const auto v = require_views<3>({{{self, "self"}, {valuesOut, "valuesOut"}, {indicesOut, "indicesOut"}}});
    kn::check_sort(&v[1], &v[2], v[0], dim);
    return task([v, dim, descending, stable] { kn::sort(&v[1], &v[2], v[0], dim, descending, stable); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnSort)

aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor* self, int64_t dim, bool descending, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnArgsort", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
    kn::check_sort(nullptr, &v[1], v[0], dim);
    return task([v, dim, descending] { kn::sort(nullptr, &v[1], v[0], dim, descending, true); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnArgsort)

aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted,
                                      aclTensor* valuesOut, aclTensor* indicesOut, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return prepare_op("aclnnTopk", workspaceSize, executor, [&] {
    const auto v = require_views<3>({{{self, "self"}, {valuesOut, "valuesOut"}, {indicesOut, "indicesOut"}}});
    kn::check_topk(v[1], v[2], v[0], k, dim);
    return task([v, k, dim, largest, sorted] { kn::topk(v[1], v[2], v[0], k, dim, largest, sorted); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnTopk)

}  // extern "C"
