// Embedding table kernels: the gradient of a row lookup and the in-place
// max-norm renormalization of looked-up rows.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out [..., D] (indices' shape + [D]) = the rows of weight [V, D] that
// indices name.
void embedding(const TensorView& out, const TensorView& weight, const TensorView& indices);

// out [num_weights, D] = sum over positions i with indices[i] == r of
// grad[i, :] (grad is [..., D], indices its leading shape), scaled by
// 1 / count(r) with scale_grad_by_freq; row padding_idx (if >= 0) stays 0.
// Positions are grouped by row first (a counting sort), so every row is
// summed by one task, in position order (CPU's order: equal rounding), with
// no atomics. An index outside [0, num_weights) is a KernelError.
void embedding_dense_backward(const TensorView& out, const TensorView& grad, const TensorView& indices,
                              int64_t padding_idx, bool scale_grad_by_freq);

// Each distinct row r of self [V, D] named in indices whose norm_type-norm
// exceeds max_norm is scaled by max_norm / (norm + 1e-7), in place.
void embedding_renorm(const TensorView& self, const TensorView& indices, double max_norm, double norm_type);

}  // namespace npu::kernels
