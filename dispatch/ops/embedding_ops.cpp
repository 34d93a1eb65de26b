// The embedding ops of ops/table/embedding.yaml served by `impl:` (no meta
// functions): checks and result shapes are CPU's; one aclnn op computes.
#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

void check_indices(const at::Tensor& indices, const char* op) {
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt, op,
              ": expected indices of dtype int64 or int32, got ", indices.scalar_type());
}

}  // namespace

at::Tensor embedding(const at::Tensor& weight, const at::Tensor& indices, c10::SymInt padding_idx,
                     bool scale_grad_by_freq, bool sparse) {
  if (!npu::run_native(caps::aclnnEmbedding, "embedding", {weight.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("embedding", weight, indices, padding_idx, scale_grad_by_freq, sparse);
  }
  TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  check_indices(indices, "embedding");
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.size(1));
  at::Tensor out = at::empty(shape, weight.options());
  NPU_RUN(aclnnEmbedding, weight, indices, out);
  return out;
}

at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices, c10::SymInt num_weights,
                                    c10::SymInt padding_idx, bool scale_grad_by_freq) {
  if (!npu::run_native(caps::aclnnEmbeddingDenseBackward, "embedding_dense_backward", {grad_output.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("embedding_dense_backward", grad_output, indices, num_weights, padding_idx,
                                          scale_grad_by_freq);
  }
  check_indices(indices, "embedding_dense_backward");
  const int64_t rows = num_weights.expect_int();
  TORCH_CHECK(rows >= 0, "embedding_dense_backward: num_weights must be >= 0, got ", rows);
  TORCH_CHECK(grad_output.dim() >= 1 && grad_output.numel() == indices.numel() * grad_output.size(-1),
              "embedding_dense_backward: grad_output ", grad_output.sizes(), " must have shape indices.shape + [D], indices ",
              indices.sizes());
  at::Tensor out = at::empty({rows, grad_output.size(-1)}, grad_output.options());
  // CANN's paddingIdx is uint64_t; -1 (no padding row) travels as its bit pattern.
  NPU_RUN(aclnnEmbeddingDenseBackward, grad_output, indices, static_cast<uint64_t>(rows),
          static_cast<uint64_t>(padding_idx.expect_int()), scale_grad_by_freq, out);
  return out;
}

at::Tensor& embedding_renorm_(at::Tensor& self, const at::Tensor& indices, double max_norm, double norm_type) {
  if (!npu::run_native(caps::aclnnEmbeddingRenorm, "embedding_renorm_", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("embedding_renorm_", self, indices, max_norm, norm_type);
  }
  TORCH_CHECK(self.dim() == 2, "embedding_renorm_: self must be 2-dim, got ", self.sizes());
  check_indices(indices, "embedding_renorm_");
  NPU_RUN(aclnnEmbeddingRenorm, self, indices, max_norm, norm_type);
  return self;
}

}  // namespace npu::ops
