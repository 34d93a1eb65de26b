// torch.unique without dim (aten::_unique2) as CANN's aclnnUnique2 computes
// it: the distinct values in ascending order, each element's index among
// them, and their counts. The number of distinct values is only known after
// the run: the outputs are made at their largest size and the caller narrows
// them to the returned count.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct UniqueOutputs {
  TensorView values;                  // self's dtype, 1-D [>= self.numel()]
  std::optional<TensorView> inverse;  // int64, self's shape
  std::optional<TensorView> counts;   // int64, 1-D [>= self.numel()]
};

// Throws KernelError naming the output that does not fit.
void check_unique(const TensorView& self, const UniqueOutputs& out);

// Writes the first `count` values (and counts) and every inverse index;
// returns count. NaNs sort last and each is distinct (NaN != NaN), as on
// PyTorch CPU.
int64_t unique_sorted(const TensorView& self, const UniqueOutputs& out);

}  // namespace npu::kernels
