// The indexing family's argument conversions, used by the `map:` and
// `check:` expressions of ops/table/index.yaml: aten's arguments turned into
// the aclnn parameters CANN defines.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <c10/util/string_view.h>

namespace npu::table {

// aclnnScatter's reduce codes: 0 replace, 1 add, 2 multiply.
int64_t scatter_code(c10::string_view reduce);
// aclnnScatterReduce's codes: 1 sum, 2 prod, 3 amax, 4 amin, 5 mean.
int64_t scatter_reduce_code(c10::string_view reduce);
// CPU has no amax/amin for complex tensors: the same NotImplementedError.
void check_scatter_reduce_dtype(const at::Tensor& self, c10::string_view reduce);

// aten's index list as aclnnIndex takes it: one entry per indexed dim
// (undefined = ':'), integer indices and bool/uint8 masks as they are, on
// `device` (PyTorch accepts CPU indices for a device tensor).
std::vector<at::Tensor> index_list(const c10::List<std::optional<at::Tensor>>& indices, at::Device device);

}  // namespace npu::table
