// torch_npu's flash attention ops on npu-emu's own backend:
// npu_fusion_attention(_grad) launch CANN's aclnnFlashAttentionScore(/Grad)
// (ops/table/attention.yaml) as op-plugin does, dropout included: with
// keep_prob < 1 the forward reserves Philox (seed, offset) from the npu
// generator as torch_npu does (10 counter words), draws the bit-packed keep
// mask with aclnnDropoutGenMaskV2 over B*N*S1*S2 elements and returns
// (seed, offset, numels); the grad regenerates the same mask from them.
// npu_prompt_flash_attention and npu_incre_flash_attention (CANN's
// aclnnPromptFlashAttentionV3 / aclnnIncreFlashAttentionV4, not emulated as
// ops of their own) run their documented semantics on the same
// aclnnFlashAttentionScore. Refused by name: TND/varlen, prefix, sink,
// softmax_layout, and the quantization and paged-cache arguments.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/capability.h"
#include "dispatch/ops/acl_args.h"
#include "dispatch/ops/norm_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/runtime/npu_generator.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using OptTensor = std::optional<at::Tensor>;

namespace {

constexpr int64_t kSoftmaxLanes = 8;  // CANN's softmaxMax/softmaxSum last dim

struct QueryDims {
  int64_t b, s1;
};

QueryDims query_dims(const char* op, const at::Tensor& q, const std::string& layout) {
  const int64_t want = layout == "BSH" || layout == "SBH" ? 3 : 4;
  TORCH_CHECK(layout == "BSH" || layout == "SBH" || layout == "BSND" || layout == "BNSD", op,
              ": input_layout must be 'BSH', 'SBH', 'BSND' or 'BNSD', got '", layout, "' (TND is not emulated)");
  TORCH_CHECK(q.dim() == want, op, ": query must be ", want, "-D for input_layout ", layout, ", got ", q.sizes());
  if (layout == "SBH") return {q.size(1), q.size(0)};
  if (layout == "BNSD") return {q.size(0), q.size(2)};
  return {q.size(0), q.size(1)};
}

// The key's sequence length in `layout` (checked by query_dims).
int64_t key_length(const at::Tensor& k, const std::string& layout) {
  if (layout == "SBH") return k.size(0);
  if (layout == "BNSD") return k.size(2);
  return k.size(1);
}

// The number of attention scores, B * N * S1 * S2: one dropout mask bit each.
int64_t score_count(const char* op, const at::Tensor& q, const at::Tensor& k, int64_t head_num,
                    const std::string& layout) {
  const QueryDims d = query_dims(op, q, layout);
  TORCH_CHECK(k.dim() == q.dim(), op, ": key must have the query's layout ", layout, ", got ", k.sizes());
  return d.b * head_num * d.s1 * key_length(k, layout);
}

void check_keep_prob(const char* op, double keep_prob) {
  TORCH_CHECK(keep_prob > 0.0 && keep_prob <= 1.0, op, ": keep_prob must be in (0, 1], got ", keep_prob);
}

// CANN's dropout mask for flash attention, as op-plugin makes it: one bit per
// score element (aclnnDropoutGenMaskV2 over [numels], dropping with
// probability 1 - keep_prob computed in float), align(numels, 128) / 8 bytes.
at::Tensor drop_mask(const at::Tensor& query, double keep_prob, int64_t seed, int64_t offset, int64_t numels) {
  at::Tensor mask = at::empty({(numels + 127) / 128 * 128 / 8}, query.options().dtype(at::kByte));
  const double prob = static_cast<double>(1.0f - static_cast<float>(keep_prob));
  if (numels > 0) {
    NPU_RUN(aclnnDropoutGenMaskV2, std::vector<int64_t>{numels}, prob, seed, offset,
            to_acl_dtype(query.scalar_type()), mask);
  }
  return mask;
}

// The (seed, offset) torch_npu reserves per flash-attention dropout: a fixed
// 10 counter words of the device's default generator, whatever the size.
std::pair<int64_t, int64_t> reserve_dropout(const at::Tensor& query) {
  auto* gen = at::check_generator<NpuGeneratorImpl>(default_generator(query.device().index()));
  std::lock_guard<std::mutex> lock(gen->mutex_);
  const auto [seed, offset] = gen->philox_engine_inputs(10);
  return {static_cast<int64_t>(seed), static_cast<int64_t>(offset)};
}

void require_attention(const char* op, const npu::AclnnCapability& cap, const at::Tensor& q) {
  TORCH_CHECK_NOT_IMPLEMENTED(npu::run_native(cap, op, {q.scalar_type()}), "torch.ops.npu.", op,
                              ": not native for dtype ", q.scalar_type(), " (float16, bfloat16, float32)");
}

void refuse(const char* op, bool given, const char* what) {
  TORCH_CHECK(!given, op, ": ", what, " is not emulated by npu-emu; leave it None");
}

// Runs aclnnFlashAttentionScore; returns (out, softmax_max, softmax_sum, softmax_out).
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> flash_forward(
    const char* op, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, int64_t head_num,
    const std::string& layout, const OptTensor& pse, const OptTensor& padding_mask, const OptTensor& atten_mask,
    double scale, double keep_prob, int64_t pre, int64_t next, int64_t inner_precise, int64_t sparse_mode,
    const OptTensor& keep_mask = std::nullopt) {
  require_attention(op, caps::aclnnFlashAttentionScore, query);
  const QueryDims d = query_dims(op, query, layout);
  TORCH_CHECK(head_num > 0, op, ": head_num must be positive, got ", head_num);
  at::Tensor out = at::empty(query.sizes(), query.options());
  const auto stat = query.options().dtype(at::kFloat);
  at::Tensor smax = at::empty({d.b, head_num, d.s1, kSoftmaxLanes}, stat);
  at::Tensor ssum = at::empty({d.b, head_num, d.s1, kSoftmaxLanes}, stat);
  at::Tensor sout = at::empty({0}, query.options());
  std::string layout_arg = layout;
  if (query.numel() > 0) {
    NPU_RUN(aclnnFlashAttentionScore, query, key, value, pse, keep_mask, padding_mask, atten_mask,
            std::vector<int64_t>(), scale, keep_prob, pre, next, head_num, layout_arg.data(), inner_precise,
            sparse_mode, smax, ssum, sout, out);
  }
  return {out, smax, ssum, sout};
}

void refuse_varlen(const char* op, const at::OptionalIntArrayRef& prefix,
                   const at::OptionalIntArrayRef& qlen, const at::OptionalIntArrayRef& kvlen,
                   const OptTensor& sink) {
  refuse(op, prefix.has_value(), "prefix (sparse_mode 5/6)");
  refuse(op, qlen.has_value() || kvlen.has_value(), "actual_seq_qlen/actual_seq_kvlen (the TND layout)");
  refuse(op, defined(sink), "sink");
}

}  // namespace

// The kernels the table binds to the npu:: schemas (ops/table/attention.yaml
// `schemas:`); the generator declares them with the dispatcher's signatures.

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, int64_t> npu_fusion_attention(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, int64_t head_num,
    c10::string_view input_layout, const OptTensor& pse, const OptTensor& padding_mask, const OptTensor& atten_mask,
    double scale, double keep_prob, int64_t pre_tockens, int64_t next_tockens, int64_t inner_precise,
    at::OptionalIntArrayRef prefix, at::OptionalIntArrayRef actual_seq_qlen,
    at::OptionalIntArrayRef actual_seq_kvlen, int64_t sparse_mode, bool gen_mask_parallel, bool sync,
    c10::string_view softmax_layout, const OptTensor& sink, const OptTensor& dropout_mask, int64_t seed,
    int64_t offset) {
  (void)gen_mask_parallel;
  (void)sync;
  const char* op = "npu_fusion_attention";
  refuse_varlen(op, prefix, actual_seq_qlen, actual_seq_kvlen, sink);
  refuse(op, !softmax_layout.empty(), "softmax_layout");
  check_keep_prob(op, keep_prob);
  const std::string layout(input_layout);
  const int64_t numels = score_count(op, query, key, head_num, layout);
  OptTensor keep_mask;
  if (keep_prob < 1.0) {
    if (defined(dropout_mask)) {
      // The caller's mask, used as it is (op-plugin does the same).
      keep_mask = dropout_mask;
    } else {
      std::tie(seed, offset) = reserve_dropout(query);
      keep_mask = drop_mask(query, keep_prob, seed, offset, numels);
    }
  }
  auto [out, smax, ssum, sout] = flash_forward(op, query, key, value, head_num, layout, pse, padding_mask,
                                               atten_mask, scale, keep_prob, pre_tockens, next_tockens,
                                               inner_precise, sparse_mode, keep_mask);
  return {out, smax, ssum, sout, seed, offset, numels};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> npu_fusion_attention_grad(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& dy, int64_t head_num,
    c10::string_view input_layout, const OptTensor& pse, const OptTensor& padding_mask, const OptTensor& atten_mask,
    const OptTensor& softmax_max, const OptTensor& softmax_sum, const OptTensor& softmax_in,
    const OptTensor& attention_in, double scale_value, double keep_prob, int64_t pre_tockens, int64_t next_tockens,
    int64_t inner_precise, int64_t seed, int64_t offset, int64_t numels, at::OptionalIntArrayRef prefix,
    at::OptionalIntArrayRef actual_seq_qlen, at::OptionalIntArrayRef actual_seq_kvlen,
    int64_t sparse_mode, bool gen_mask_parallel, bool sync, c10::string_view softmax_layout, const OptTensor& sink) {
  (void)gen_mask_parallel;
  (void)sync;
  const char* op = "npu_fusion_attention_grad";
  refuse_varlen(op, prefix, actual_seq_qlen, actual_seq_kvlen, sink);
  refuse(op, !softmax_layout.empty(), "softmax_layout");
  require_attention(op, caps::aclnnFlashAttentionScoreGrad, query);
  check_keep_prob(op, keep_prob);
  const std::string layout(input_layout);
  const int64_t count = score_count(op, query, key, head_num, layout);
  OptTensor keep_mask;
  if (keep_prob < 1.0) {
    TORCH_CHECK(numels == count, op, ": numels (", numels, ") must be npu_fusion_attention's output 6, the B*N*S1*S2 = ",
                count, " elements its dropout mask covers");
    keep_mask = drop_mask(query, keep_prob, seed, offset, numels);
  }
  TORCH_CHECK(defined(softmax_max) && defined(softmax_sum) && defined(attention_in), op,
              ": softmax_max, softmax_sum and attention_in (npu_fusion_attention's outputs 1, 2 and 0) are "
              "required: npu-emu does not recompute the forward");
  at::Tensor dq = at::empty(query.sizes(), query.options());
  at::Tensor dk = at::empty(key.sizes(), key.options());
  at::Tensor dv = at::empty(value.sizes(), value.options());
  at::Tensor dpse = defined(pse) ? at::empty(pse->sizes(), pse->options()) : at::empty({0}, query.options());
  std::string layout_arg = layout;
  if (query.numel() > 0) {
    NPU_RUN(aclnnFlashAttentionScoreGrad, query, key, value, dy.contiguous(), pse, keep_mask, padding_mask,
            atten_mask, softmax_max, softmax_sum, softmax_in, attention_in, std::vector<int64_t>(), scale_value,
            keep_prob, pre_tockens, next_tockens, head_num, layout_arg.data(), inner_precise, sparse_mode, dq, dk, dv,
            dpse);
  } else {
    dk.zero_();
    dv.zero_();
    if (defined(pse)) dpse.zero_();
  }
  return {dq, dk, dv, dpse, at::Tensor()};
}

at::Tensor npu_prompt_flash_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                      const OptTensor& padding_mask, const OptTensor& atten_mask,
                                      const OptTensor& pse_shift, at::OptionalIntArrayRef actual_seq_lengths,
                                      const OptTensor& deq_scale1, const OptTensor& quant_scale1,
                                      const OptTensor& deq_scale2, const OptTensor& quant_scale2,
                                      const OptTensor& quant_offset2, int64_t num_heads, double scale_value,
                                      int64_t pre_tokens, int64_t next_tokens, c10::string_view input_layout,
                                      int64_t num_key_value_heads,
                                      at::OptionalIntArrayRef actual_seq_lengths_kv, int64_t sparse_mode) {
  (void)num_key_value_heads;  // read from key's shape, as aclnnFlashAttentionScore does
  const char* op = "npu_prompt_flash_attention";
  refuse(op, defined(deq_scale1) || defined(quant_scale1) || defined(deq_scale2) || defined(quant_scale2) ||
                 defined(quant_offset2),
         "quantization (deq_scale1/quant_scale1/deq_scale2/quant_scale2/quant_offset2)");
  refuse(op, actual_seq_lengths.has_value() || actual_seq_lengths_kv.has_value(),
         "actual_seq_lengths/actual_seq_lengths_kv");
  refuse(op, defined(pse_shift), "pse_shift");
  return std::get<0>(flash_forward(op, query, key, value, num_heads, std::string(input_layout), std::nullopt,
                                   padding_mask, atten_mask, scale_value, 1.0, pre_tokens, next_tokens, 0,
                                   sparse_mode));
}

at::Tensor npu_incre_flash_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                     const OptTensor& padding_mask, const OptTensor& atten_mask,
                                     const OptTensor& pse_shift, at::OptionalSymIntArrayRef actual_seq_lengths,
                                     const OptTensor& antiquant_scale, const OptTensor& antiquant_offset,
                                     const OptTensor& block_table, const OptTensor& dequant_scale1,
                                     const OptTensor& quant_scale1, const OptTensor& dequant_scale2,
                                     const OptTensor& quant_scale2, const OptTensor& quant_offset2,
                                     const OptTensor& kv_padding_size, int64_t num_heads, double scale_value,
                                     c10::string_view input_layout, int64_t num_key_value_heads, int64_t block_size,
                                     int64_t inner_precise) {
  (void)num_key_value_heads;
  (void)block_size;
  (void)inner_precise;
  const char* op = "npu_incre_flash_attention";
  refuse(op, defined(antiquant_scale) || defined(antiquant_offset) || defined(dequant_scale1) ||
                 defined(quant_scale1) || defined(dequant_scale2) || defined(quant_scale2) || defined(quant_offset2),
         "quantization (antiquant_*/dequant_*/quant_*)");
  refuse(op, defined(block_table), "block_table (the paged KV cache)");
  refuse(op, defined(kv_padding_size) || actual_seq_lengths.has_value(), "kv_padding_size/actual_seq_lengths");
  refuse(op, defined(pse_shift), "pse_shift");
  const std::string layout(input_layout);
  // One new token per sequence attends to the whole cache: the mask alone
  // (sparse mode 1) decides what is hidden.
  return std::get<0>(flash_forward(op, query, key, value, num_heads, layout, std::nullopt, padding_mask, atten_mask,
                                   scale_value, 1.0, 2147483647, 2147483647, 0, 1));
}

}  // namespace npu::ops
