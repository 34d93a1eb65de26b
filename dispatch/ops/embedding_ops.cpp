// The embedding ops of ops/table/embedding.yaml served by `impl:` (no meta
// functions): checks and result shapes are CPU's; one aclnn op computes.
#include <optional>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/TensorUtils.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

// CPU's own check (ATen/TensorUtils.h), so the error reads as CPU's:
// "Expected tensor for argument #<pos> '<name>' to have one of the following
// scalar types: Long, Int; ... (while checking arguments for <op>)".
void check_indices(const at::Tensor& indices, const char* op, const char* name = "indices", int pos = 1) {
  at::checkScalarTypes(op, at::TensorArg(indices, name, pos), {at::kLong, at::kInt});
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
  check_indices(indices, "embedding_backward", "indices", 2);
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
  check_indices(indices, "embedding_renorm_", "indices", 2);
  NPU_RUN(aclnnEmbeddingRenorm, self, indices, max_norm, norm_type);
  return self;
}

// ---- embedding_bag ----

namespace {

using OptTensor = std::optional<at::Tensor>;
using Bag = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

void check_bag(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets, int64_t mode,
               const OptTensor& per_sample_weights, bool include_last_offset) {
  TORCH_CHECK(weight.dim() == 2, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension ",
              weight.dim());
  TORCH_CHECK(indices.dim() == 1, "embedding_bag: input has to be a 1D Tensor, but got Tensor of dimension ",
              indices.dim());
  TORCH_CHECK(offsets.dim() == 1, "embedding_bag: offsets has to be a 1D Tensor, but got Tensor of dimension ",
              offsets.dim());
  check_indices(indices, "embedding_bag");
  check_indices(offsets, "embedding_bag", "offsets", 1);
  TORCH_CHECK(mode >= 0 && mode <= 2, "embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  TORCH_CHECK(!include_last_offset || offsets.numel() >= 1,
              "embedding_bag: include_last_offset: number of offset should be at least 1");
  if (per_sample_weights && per_sample_weights->defined()) {
    TORCH_CHECK(mode == 0, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TORCH_CHECK(per_sample_weights->sizes() == indices.sizes(),
                "embedding_bag: expected per_sample_weights to be 1D tensor and have the same shape as input");
  }
}

Bag run_bag(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets, bool scale_grad_by_freq,
            int64_t mode, bool sparse, const OptTensor& per_sample_weights, bool include_last_offset,
            int64_t padding_idx) {
  check_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset);
  const int64_t bags = include_last_offset ? offsets.numel() - 1 : offsets.numel();
  const at::TensorOptions ints = offsets.options();
  at::Tensor output = at::empty({bags, weight.size(1)}, weight.options());
  at::Tensor offset2bag = at::empty({indices.numel()}, ints);
  at::Tensor bag_size = at::empty({bags}, ints);
  at::Tensor max_indices = mode == 2 ? at::empty({bags, weight.size(1)}, ints) : at::empty({bags}, ints);
  NPU_RUN(aclnnEmbeddingBag, weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
          include_last_offset, padding_idx, output, offset2bag, bag_size, max_indices);
  return {std::move(output), std::move(offset2bag), std::move(bag_size), std::move(max_indices)};
}

}  // namespace

Bag embedding_bag(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                  bool scale_grad_by_freq, int64_t mode, bool sparse, const OptTensor& per_sample_weights,
                  bool include_last_offset, int64_t padding_idx) {
  if (!npu::run_native(caps::aclnnEmbeddingBag, "_embedding_bag", {weight.scalar_type()})) {
    return npu::fallback_call<Bag>("_embedding_bag", weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                                   per_sample_weights, include_last_offset, padding_idx);
  }
  return run_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
                 padding_idx);
}

Bag embedding_bag_forward_only(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                               bool scale_grad_by_freq, int64_t mode, bool sparse,
                               const OptTensor& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  if (!npu::run_native(caps::aclnnEmbeddingBag, "_embedding_bag_forward_only", {weight.scalar_type()})) {
    return npu::fallback_call<Bag>("_embedding_bag_forward_only", weight, indices, offsets, scale_grad_by_freq, mode,
                                   sparse, per_sample_weights, include_last_offset, padding_idx);
  }
  return run_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
                 padding_idx);
}

at::Tensor embedding_bag_dense_backward(const at::Tensor& grad, const at::Tensor& indices, const at::Tensor& offset2bag,
                                        const at::Tensor& bag_size, const at::Tensor& maximum_indices,
                                        c10::SymInt num_weights, bool scale_grad_by_freq, int64_t mode,
                                        const OptTensor& per_sample_weights, int64_t padding_idx) {
  // scale_grad_by_freq: CPU's embedding_bag kernels scale rows by counts
  // that are not each row's frequency (F.embedding's are); rather than a
  // different answer, CPU's own kernel runs.
  if (scale_grad_by_freq ||
      !npu::run_native(caps::aclnnEmbeddingBagDenseBackward, "_embedding_bag_dense_backward", {grad.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("_embedding_bag_dense_backward", grad, indices, offset2bag, bag_size,
                                          maximum_indices, num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                          padding_idx);
  }
  check_indices(indices, "embedding_bag_backward");
  TORCH_CHECK(grad.dim() == 2, "embedding_bag_backward: grad must be 2-dim [B, D], got ", grad.sizes());
  TORCH_CHECK(mode >= 0 && mode <= 2, "embedding_bag_backward: mode must be 0, 1 or 2, got ", mode);
  const int64_t rows = num_weights.expect_int();
  at::Tensor out = at::empty({rows, grad.size(1)}, grad.options());
  NPU_RUN(aclnnEmbeddingBagDenseBackward, grad, indices, offset2bag, bag_size, maximum_indices,
          static_cast<uint64_t>(rows), scale_grad_by_freq, mode, per_sample_weights, padding_idx, out);
  return out;
}

at::Tensor embedding_bag_backward(const at::Tensor& grad, const at::Tensor& indices, const at::Tensor& offsets,
                                  const at::Tensor& offset2bag, const at::Tensor& bag_size,
                                  const at::Tensor& maximum_indices, c10::SymInt num_weights, bool scale_grad_by_freq,
                                  int64_t mode, bool sparse, const OptTensor& per_sample_weights,
                                  int64_t padding_idx) {
  if (sparse || scale_grad_by_freq ||
      !npu::run_native(caps::aclnnEmbeddingBagDenseBackward, "_embedding_bag_backward", {grad.scalar_type()})) {
    // A sparse gradient is a sparse COO tensor, which npu tensors are not;
    // scale_grad_by_freq: see embedding_bag_dense_backward.
    return npu::fallback_call<at::Tensor>("_embedding_bag_backward", grad, indices, offsets, offset2bag, bag_size,
                                          maximum_indices, num_weights, scale_grad_by_freq, mode, sparse,
                                          per_sample_weights, padding_idx);
  }
  return embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices, std::move(num_weights),
                                      scale_grad_by_freq, mode, per_sample_weights, padding_idx);
}

at::Tensor embedding_bag_per_sample_weights_backward(const at::Tensor& grad, const at::Tensor& weight,
                                                     const at::Tensor& indices, const at::Tensor& offsets,
                                                     const at::Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  if (!npu::run_native(caps::aclnnEmbeddingBagPerSampleWeightsBackward, "_embedding_bag_per_sample_weights_backward",
                       {grad.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("_embedding_bag_per_sample_weights_backward", grad, weight, indices, offsets,
                                          offset2bag, mode, padding_idx);
  }
  TORCH_CHECK(mode == 0, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  check_indices(indices, "embedding_bag_backward");
  at::Tensor out = at::empty(indices.sizes(), grad.options());
  NPU_RUN(aclnnEmbeddingBagPerSampleWeightsBackward, grad, weight, indices, offsets, offset2bag, mode, padding_idx,
          out);
  return out;
}

}  // namespace npu::ops
