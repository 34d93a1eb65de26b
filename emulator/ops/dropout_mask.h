// Task makers of CANN's two-launch dropout (ops/table/dropout_mask.yaml):
// DropoutGenMask(V2) draws the bit-packed keep mask, DropoutDoMask applies
// it (forward and gradient). Mask layout and randomness:
// kernels/random/dropout_mask.h.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody dropout_gen_mask_task(const aclIntArray* shape, double prob, int64_t seed, int64_t offset, aclTensor* out);
TaskBody dropout_gen_mask_v2_task(const aclIntArray* shape, double prob, int64_t seed, int64_t offset,
                                  aclDataType probDataType, aclTensor* out);
TaskBody dropout_do_mask_task(const aclTensor* self, const aclTensor* mask, double prob, aclTensor* out);

}  // namespace npu::emu
