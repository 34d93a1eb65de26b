// The arithmetic of the stand-in HCCL's reducing collectives, on host copies
// of the ranks' buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hccl_types.h"

namespace npu::standin::hccl {

// Bytes of one element; throws HcclError(HCCL_E_PARA) naming the value for a
// data type the stand-in does not know.
size_t element_size(HcclDataType type);

// out[i] = op over inputs[r][i] for r in rank order (the same order on every
// rank, so every rank gets the same bits). float16/bfloat16 accumulate in
// float32 and round once; integers wrap around.
void reduce(HcclDataType type, HcclReduceOp op, const std::vector<const std::byte*>& inputs, std::byte* out,
            uint64_t count);

}  // namespace npu::standin::hccl
