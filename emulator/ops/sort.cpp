// The sort family's task makers (kernels/sort/sort.h); shapes, dtypes and k
// are checked at GetWorkspaceSize time.
#include "emulator/ops/sort.h"

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/sort/sort.h"

namespace npu::emu {

namespace kn = kernels;

TaskBody sort_task(const aclTensor* self, bool stable, int64_t dim, bool descending,
                   aclTensor* valuesOut, aclTensor* indicesOut) {
  const auto v = require_views<3>({{{self, "self"}, {valuesOut, "valuesOut"}, {indicesOut, "indicesOut"}}});
  kn::check_sort(&v[1], &v[2], v[0], dim);
  return [v, dim, descending, stable] { kn::sort(&v[1], &v[2], v[0], dim, descending, stable); };
}

TaskBody argsort_task(const aclTensor* self, int64_t dim, bool descending, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  kn::check_sort(nullptr, &v[1], v[0], dim);
  return [v, dim, descending] { kn::sort(nullptr, &v[1], v[0], dim, descending, true); };
}

TaskBody topk_task(const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted,
                   aclTensor* valuesOut, aclTensor* indicesOut) {
  const auto v = require_views<3>({{{self, "self"}, {valuesOut, "valuesOut"}, {indicesOut, "indicesOut"}}});
  kn::check_topk(v[1], v[2], v[0], k, dim);
  return [v, k, dim, largest, sorted] { kn::topk(v[1], v[2], v[0], k, dim, largest, sorted); };
}

}  // namespace npu::emu
