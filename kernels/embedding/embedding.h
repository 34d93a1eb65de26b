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

// embedding_bag: bag b holds indices[offsets[b] .. offsets[b + 1]) (the last
// bag runs to the end, or to the last offset with include_last_offset);
// indices equal to padding_idx (>= 0) count nothing. mode 0 sums the rows
// (times per_sample_weights[i] if given), 1 averages them, 2 takes the
// element-wise max (max_indices [B, D]: the row chosen, -1 for an empty
// bag; for modes 0 and 1 max_indices is zero-filled). offset2bag[i] is the
// bag of index i, bag_size[b] the counted indices of bag b. Sums run in
// float (double for float64) in index order and round once.
enum class BagMode : int64_t { Sum = 0, Mean = 1, Max = 2 };
void embedding_bag(const TensorView& out, const TensorView& offset2bag, const TensorView& bag_size,
                   const TensorView& max_indices, const TensorView& weight, const TensorView& indices,
                   const TensorView& offsets, BagMode mode, const TensorView* per_sample_weights,
                   bool include_last_offset, int64_t padding_idx);

// The weight gradient of embedding_bag, from its offset2bag, bag_size and
// max_indices: each weight row is summed by one task (positions grouped by
// row first), no atomics.
void embedding_bag_dense_backward(const TensorView& out, const TensorView& grad, const TensorView& indices,
                                  const TensorView& offset2bag, const TensorView& bag_size,
                                  const TensorView& max_indices, bool scale_grad_by_freq, BagMode mode,
                                  const TensorView* per_sample_weights, int64_t padding_idx);

// The per_sample_weights gradient of a mode-0 embedding_bag: out[i] =
// dot(grad[offset2bag[i]], weight[indices[i]]), 0 at padding_idx.
void embedding_bag_per_sample_weights_backward(const TensorView& out, const TensorView& grad,
                                               const TensorView& weight, const TensorView& indices,
                                               const TensorView& offset2bag, int64_t padding_idx);

}  // namespace npu::kernels
