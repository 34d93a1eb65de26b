// Task makers of the factory family (ops/table/factory.yaml): each checks
// one call's parameters on the host and returns the kernel task that fills
// `out` with values made from the parameters alone.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// out[i] = start + i * step; out is 1-D with exactly the range's length.
TaskBody arange_task(const aclScalar* start, const aclScalar* end, const aclScalar* step,
                     aclTensor* out);
// `steps` evenly spaced values from start to end inclusive; out is 1-D of `steps` elements.
TaskBody linspace_task(const aclScalar* start, const aclScalar* end, int64_t steps, aclTensor* out);
// The n x m identity matrix; out is [n, m].
TaskBody eye_task(int64_t n, int64_t m, aclTensor* out);

}  // namespace npu::emu
