// Kernels of torch_npu's fused LLM ops (CANN's aclnnRotaryPositionEmbedding,
// aclnnSwiGlu, aclnnScaledMaskedSoftmax, aclnnMoeGatingTopKSoftmax,
// aclnnInplaceScatterUpdate and their gradients; ops/table/fused.yaml).
// Operands are strided views of any real floating dtype; each kernel gathers
// them into dense buffers of its compute type (double for float64 operands,
// else float, as PyTorch CPU computes float16/bfloat16), computes, and writes
// the results back in the outputs' dtypes.
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// out = a + b (same shapes), rounded once to out's dtype: aclnnAddRmsNorm's xOut.
void add_same_shape(const TensorView& out, const TensorView& a, const TensorView& b);

// How the last dim of x is rotated: kHalf pairs x[i] with x[i + D/2]
// (rotate_half = [-x2, x1]), kInterleave pairs x[2i] with x[2i + 1].
enum class RotaryMode : int64_t { kHalf = 0, kInterleave = 1 };

// out = x * cos + rotate(x) * sin; cos and sin broadcast to x.
void rotary_mul(const TensorView& out, const TensorView& x, const TensorView& cos, const TensorView& sin,
                RotaryMode mode);

// The gradients of rotary_mul given dy; dx, dcos, dsin may be null (not
// wanted); dcos/dsin sum over the dims cos/sin broadcast along.
void rotary_mul_backward(const TensorView& dy, const TensorView& x, const TensorView& cos, const TensorView& sin,
                         RotaryMode mode, const TensorView* dx, const TensorView* dcos, const TensorView* dsin);

// out = silu(a) * b with x = [a, b] split in halves along `dim`.
void swiglu(const TensorView& out, const TensorView& x, int64_t dim);
void swiglu_backward(const TensorView& dx, const TensorView& dy, const TensorView& x, int64_t dim);

// y = softmax over the last dim of x * scale with masked positions (mask
// nonzero, broadcast to x; or, with fixed_triu, j > i) set to -10000.
void scaled_masked_softmax(const TensorView& y, const TensorView& x, const TensorView* mask, double scale,
                           bool fixed_triu);
// dx = scale * y * (dy - sum(dy * y)) with masked positions 0.
void scaled_masked_softmax_backward(const TensorView& dx, const TensorView& dy, const TensorView& y,
                                    const TensorView* mask, double scale, bool fixed_triu);

// Per row of x [..., E]: softmax over the E experts (rows whose `finished`
// flag is set give expert index E), the k largest probabilities in
// descending order (y), their expert indices (int32) and row_idx[r, j] = j * rows + r.
void moe_gating_top_k_softmax(const TensorView& y, const TensorView& expert_idx, const TensorView& row_idx,
                              const TensorView& x, const TensorView* finished, int64_t k);

// data[b, ..., indices[b] + t, ...] (along `axis`) = updates[b, ..., t, ...]:
// CANN's ScatterUpdate, a KV-cache write (indices [B] of start positions, or
// [B, 2] of (batch, position) pairs).
void scatter_update(const TensorView& data, const TensorView& indices, const TensorView& updates, int64_t axis);

}  // namespace npu::kernels
