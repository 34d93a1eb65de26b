// Fused scaled dot-product attention, forward and backward, one kernel each:
//
//   P   = softmax(scale * Q K^T + bias, masked causally when asked)
//   out = dropout(P) V                         per (batch, head)
//
// Q is [B, H, L, E], K [B, Hk, S, E], V [B, Hk, S, Ev] with H a multiple of
// Hk (grouped-query attention: query head h reads key/value head
// h / (H / Hk)). The additive bias is a view broadcast to [B, H, L, S]
// (stride 0 where it broadcasts). The causal mask keeps (i, j) with j <= i
// (aligned top left, as PyTorch's is_causal). A row every key of which is
// masked gets probability 0 everywhere (output 0), as PyTorch's math path.
//
// Dropout numbers the [B, H, L, S] probabilities row-major, e = ((b * H + h)
// * L + i) * S + j, and keeps element e when the uniform float of word e % 4
// of the Philox block of counter offset / 4 + e / 4 is >= p (one counter
// word per element, B * H * L * S rounded up to whole blocks); the backward recomputes the
// same keep mask from the same (seed, offset), so no mask is stored. With
// keep_bits instead (CANN's aclnnFlashAttentionScore), element e is kept when
// bit e % 8 of byte e / 8 of that mask is 1 (aclnnDropoutGenMask's packing),
// with the same numbering; the Philox inputs are then unused.
//
// Reduced floats compute in float (double in double): each (batch, head) is
// loaded once into float buffers, products run on the GEMM engine
// (kernels/linalg) a block of query rows at a time, so the score matrix
// never exists whole, and results round once into the outputs. The
// exponentials are Eigen's vectorized ones: this file is built with the Cube
// kernels' ISA flags (CMakeLists.txt), as attention is matrix work. oneTBB
// splits the work over batch x heads (the backward over batch x key/value
// heads, so the gradients of a shared key/value head have one writer).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/core/tensor_view.h"
#include "kernels/random/random_ops.h"

namespace npu::kernels {

struct AttentionParams {
  TensorView query;                // [B, H, L, E]
  TensorView key;                  // [B, Hk, S, E]
  TensorView value;                // [B, Hk, S, Ev]
  std::optional<TensorView> bias;  // broadcast to [B, H, L, S], query's dtype or float (for reduced floats)
  double scale = 1.0;
  bool causal = false;
  double dropout_p = 0.0;
  PhiloxInputs rng;
  const uint8_t* keep_bits = nullptr;  // the bit-packed keep mask, when dropout_p > 0 and not Philox
};

// Throw KernelError naming what is wrong with the arguments (the kernels
// check the same; the emulator checks before launching).
void check_attention_forward(const AttentionParams& p, const TensorView& out, const TensorView& logsumexp);
void check_attention_backward(const AttentionParams& p, const TensorView& grad_out, const TensorView& out,
                              const TensorView& logsumexp, const TensorView& grad_query, const TensorView& grad_key,
                              const TensorView& grad_value);

// out [B, H, L, Ev] (query's dtype); logsumexp [B, H, L] (float, double for
// double queries): the log of each row's softmax normaliser, -inf for a fully
// masked row.
void attention_forward(const AttentionParams& p, const TensorView& out, const TensorView& logsumexp);

// The gradients of attention_forward's `out` given grad_out, from the
// forward's out and logsumexp. grad_query/key/value have the shapes and
// dtype of query/key/value. grad_bias, when given, receives the gradient of
// the scores before the softmax (that of an unbroadcast bias): dense
// row-major [B, H, L, S] in float (double for double queries).
void attention_backward(const AttentionParams& p, const TensorView& grad_out, const TensorView& out,
                        const TensorView& logsumexp, const TensorView& grad_query, const TensorView& grad_key,
                        const TensorView& grad_value, const std::optional<TensorView>& grad_bias = std::nullopt);

}  // namespace npu::kernels
