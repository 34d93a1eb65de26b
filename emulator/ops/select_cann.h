// Task makers of ops/table/select_cann.yaml: CANN's aclnnIsClose,
// aclnnIsFinite (a unary_task row), aclnnNonzeroV2 and aclnnUnique2, which
// the real torch_npu calls on the CANN stand-in.
#pragma once

#include "acl/acl_base.h"
#include "emulator/ops/unary.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody isclose_task(const aclTensor* self, const aclTensor* other, double rtol, double atol, bool equalNan,
                      aclTensor* out);
// out int64 [self.dim(), self.numel()], narrowed to [self.dim(), count] by the run.
TaskBody nonzero_v2_task(const aclTensor* self, aclTensor* out);
TaskBody unique2_task(const aclTensor* self, bool sorted, bool returnInverse, bool returnCounts, aclTensor* valueOut,
                      aclTensor* inverseOut, aclTensor* countsOut);

}  // namespace npu::emu
