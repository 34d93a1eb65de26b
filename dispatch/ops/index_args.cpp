#include "dispatch/ops/index_args.h"

#include <c10/util/Exception.h>

namespace npu::table {

int64_t scatter_code(c10::string_view reduce) {
  if (reduce == "add") return 1;
  if (reduce == "multiply") return 2;
  TORCH_CHECK(false, "reduce argument must be either add or multiply.");
}

int64_t scatter_reduce_code(c10::string_view reduce) {
  if (reduce == "sum") return 1;
  if (reduce == "prod") return 2;
  if (reduce == "amax") return 3;
  if (reduce == "amin") return 4;
  if (reduce == "mean") return 5;
  TORCH_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

void check_scatter_reduce_dtype(const at::Tensor& self, c10::string_view reduce) {
  TORCH_CHECK_NOT_IMPLEMENTED(!(self.is_complex() && (reduce == "amax" || reduce == "amin")), "scatter_reduce(): ",
                              reduce, " is not implemented for ", self.scalar_type());
}

std::vector<at::Tensor> index_list(const c10::List<std::optional<at::Tensor>>& indices, at::Device device) {
  std::vector<at::Tensor> out;
  out.reserve(indices.size());
  for (const std::optional<at::Tensor>& entry : indices) {
    if (!entry.has_value() || !entry->defined()) {
      out.emplace_back();
    } else {
      out.push_back(entry->device() == device ? *entry : entry->to(device));
    }
  }
  return out;
}

}  // namespace npu::table
