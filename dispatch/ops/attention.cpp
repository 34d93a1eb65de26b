// scaled_dot_product_attention on npu: the SDPA choice for PrivateUse1 and
// the "overrideable" fused attention it picks (the `impl:`s of
// ops/table/attention.yaml). PyTorch's scaled_dot_product_attention asks
// _fused_sdp_choice_stub which backend serves the call; for what the fused
// aclnn ops cover, the answer here is `overrideable`, and the call becomes one
// aclnnNpuFusedAttention launch (autograd's backward: one
// aclnnNpuFusedAttentionBackward). Everything else gets `math`, PyTorch's
// composite of native ops, so no combination of arguments errors here.
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/ExpandUtils.h>
#include <ATen/SDPBackend.h>
#include <ATen/core/DistributionsHelper.h>
#include <ATen/native/transformers/attention.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/GradMode.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/runtime/npu_generator.h"

namespace npu::ops {

namespace {

constexpr const char* kForward = "_scaled_dot_product_fused_attention_overrideable";
constexpr const char* kBackward = "_scaled_dot_product_fused_attention_overrideable_backward";

bool fused_op_serves(c10::ScalarType dtype) {
  const auto& fwd = table::caps::aclnnNpuFusedAttention;
  const auto& bwd = table::caps::aclnnNpuFusedAttentionBackward;
  return fwd.symbol_present() && bwd.symbol_present() && fwd.dtypes.contains(dtype) && bwd.dtypes.contains(dtype);
}

// Whether the fused ops compute this call exactly as PyTorch's math path
// would: dense 3-D/4-D npu tensors of one floating dtype, equal batch, key
// and value agreeing, query heads a multiple of key/value heads only with
// enable_gqa, and a mask (bool or the query's dtype) broadcasting to the
// scores that needs no gradient (the fused backward computes none for it).
bool fused_attention_covers(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const std::optional<at::Tensor>& mask, double dropout_p, bool enable_gqa) {
  const int64_t rank = q.dim();
  if ((rank != 3 && rank != 4) || k.dim() != rank || v.dim() != rank) return false;
  for (const at::Tensor* t : {&q, &k, &v}) {
    if (!t->is_privateuseone() || t->is_nested() || t->layout() != at::kStrided || t->scalar_type() != q.scalar_type()) {
      return false;
    }
  }
  if (!fused_op_serves(q.scalar_type())) return false;
  if (rank == 4 && (k.size(0) != q.size(0) || v.size(0) != q.size(0))) return false;
  const int64_t heads = q.size(-3);
  const int64_t kv_heads = k.size(-3);
  if (v.size(-3) != kv_heads || v.size(-2) != k.size(-2) || k.size(-1) != q.size(-1)) return false;
  if (kv_heads != heads && !(enable_gqa && kv_heads > 0 && heads % kv_heads == 0)) return false;
  if (q.size(-2) == 0 || k.size(-2) == 0 || q.numel() == 0) return false;
  if (!(dropout_p >= 0.0 && dropout_p <= 1.0)) return false;
  if (mask.has_value() && mask->defined()) {
    const at::Tensor& m = *mask;
    if (!m.is_privateuseone() || m.is_nested() || m.layout() != at::kStrided) return false;
    if (m.scalar_type() != at::kBool && m.scalar_type() != q.scalar_type()) return false;
    if (m.requires_grad() && c10::GradMode::is_enabled()) return false;
    std::vector<int64_t> scores(q.sizes().begin(), q.sizes().end() - 1);
    scores.push_back(k.size(-2));
    if (!at::is_expandable_to(m.sizes(), scores)) return false;
  }
  return true;
}

int64_t npu_sdp_choice(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                       const std::optional<at::Tensor>& attn_mask, double dropout_p, bool /*is_causal*/,
                       std::optional<double> /*scale*/, bool enable_gqa) {
  const bool fused = at::globalContext().userEnabledOverrideableSDP() &&
                     fused_attention_covers(query, key, value, attn_mask, dropout_p, enable_gqa);
  return static_cast<int64_t>(fused ? at::SDPBackend::overrideable : at::SDPBackend::math);
}

// A 3-D [heads, length, dim] operand as the fused op's 4-D BNSD.
at::Tensor as_bnsd(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(0) : t; }

void check_operands(const char* op, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  TORCH_CHECK((q.dim() == 3 || q.dim() == 4) && k.dim() == q.dim() && v.dim() == q.dim(), op,
              ": query, key and value must all be 3-D or all 4-D on npu, got ", q.dim(), "-D, ", k.dim(), "-D and ",
              v.dim(), "-D");
  TORCH_CHECK(k.scalar_type() == q.scalar_type() && v.scalar_type() == q.scalar_type(), op,
              ": query, key and value must share one dtype, got ", q.scalar_type(), ", ", k.scalar_type(), " and ",
              v.scalar_type());
}

double scale_of(const at::Tensor& q, std::optional<double> scale) {
  return scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
}

// The additive bias as the op takes it: broadcast to [B, H, L, S] (a view).
std::optional<at::Tensor> bias_of(const char* op, const at::Tensor& bias, const at::Tensor& q4, const at::Tensor& k4) {
  if (!bias.defined()) return std::nullopt;
  TORCH_CHECK(bias.scalar_type() == q4.scalar_type(), op, ": attn_bias must be additive in the query's dtype (",
              q4.scalar_type(), "), got ", bias.scalar_type(),
              "; scaled_dot_product_attention converts a boolean mask before calling it");
  return bias.expand({q4.size(0), q4.size(1), q4.size(2), k4.size(2)});
}

at::ScalarType logsumexp_dtype(at::ScalarType dtype) { return dtype == at::kDouble ? at::kDouble : at::kFloat; }

}  // namespace

at::Tensor safe_softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  at::Tensor out = at::softmax(self, dim, dtype);
  const at::Tensor masked_rows = self.eq(-std::numeric_limits<double>::infinity()).all(dim, /*keepdim=*/true);
  return out.masked_fill_(masked_rows, 0);
}

int64_t fused_sdp_choice(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                         const std::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,
                         std::optional<double> scale, bool enable_gqa) {
  return npu_sdp_choice(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor, at::Tensor,
           at::Tensor>
sdpa_overrideable(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                  const std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal, bool return_debug_mask,
                  std::optional<double> scale) {
  check_operands(kForward, query, key, value);
  TORCH_CHECK(!return_debug_mask, kForward,
              ": return_debug_mask=True is not supported on npu (the fused op keeps no attention weights); "
              "use torch.nn.attention.sdpa_kernel(SDPBackend.MATH)");
  TORCH_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, kForward, ": dropout_p must be in [0, 1], got ", dropout_p);
  const c10::DeviceGuard guard(query.device());
  const at::Tensor q4 = as_bnsd(query);
  const at::Tensor k4 = as_bnsd(key);
  const at::Tensor v4 = as_bnsd(value);
  const std::optional<at::Tensor> bias = bias_of(kForward, attn_bias.value_or(at::Tensor()), q4, k4);
  const int64_t batch = q4.size(0), heads = q4.size(1), length = q4.size(2), kv_length = k4.size(2);
  TORCH_CHECK(run_native(table::caps::aclnnNpuFusedAttention, kForward, {query.scalar_type()}), kForward,
              ": aclnnNpuFusedAttention is not available for ", query.scalar_type(),
              "; use torch.nn.attention.sdpa_kernel(SDPBackend.MATH)");
  at::Tensor out = empty_npu({batch, heads, length, v4.size(3)}, query.scalar_type(), query.device());
  at::Tensor lse = empty_npu({batch, heads, length}, logsumexp_dtype(query.scalar_type()), query.device());
  uint64_t seed = 0, offset = 0;
  if (dropout_p > 0.0) {
    // The counter words of the score elements' draws, reserved under the
    // generator's lock; the backward redraws the same mask from them
    auto* gen = at::get_generator_or_default<NpuGeneratorImpl>(std::nullopt, default_generator(query.device().index()));
    std::lock_guard<std::mutex> lock(gen->mutex_);
    // (one word per element in whole blocks: kernels/attention/attention.h)
    std::tie(seed, offset) = gen->philox_engine_inputs((static_cast<uint64_t>(batch * heads * length * kv_length) + 3) / 4 * 4);
  }
  NPU_RUN(aclnnNpuFusedAttention, q4, k4, v4, bias, scale_of(query, scale), is_causal, dropout_p,
          static_cast<int64_t>(seed), static_cast<int64_t>(offset), out, lse);
  if (query.dim() == 3) {
    out = out.squeeze(0);
    lse = lse.squeeze(0);
  }
  // Seed and offset live on the host, as CUDA's flash attention keeps them
  // outside graph capture: the backward reads them without a device sync.
  at::Tensor seed_t = at::scalar_tensor(static_cast<int64_t>(seed), at::TensorOptions().dtype(at::kLong));
  at::Tensor offset_t = at::scalar_tensor(static_cast<int64_t>(offset), at::TensorOptions().dtype(at::kLong));
  return {std::move(out), std::move(lse),    at::Tensor(),         at::Tensor(), c10::SymInt(length),
          c10::SymInt(kv_length), std::move(seed_t), std::move(offset_t), at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> sdpa_overrideable_backward(
    const at::Tensor& grad_out, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const at::Tensor& attn_bias, std::array<bool, 4> grad_input_mask, const at::Tensor& out,
    const at::Tensor& logsumexp, const at::Tensor& /*cum_seq_q*/, const at::Tensor& /*cum_seq_k*/,
    c10::SymInt /*max_q*/, c10::SymInt /*max_k*/, double dropout_p, bool is_causal, const at::Tensor& philox_seed,
    const at::Tensor& philox_offset, std::optional<double> scale) {
  check_operands(kBackward, query, key, value);
  TORCH_CHECK(!grad_input_mask[3], kBackward,
              ": the gradient of attn_mask is not computed by the fused op; scaled_dot_product_attention routes a "
              "mask that requires grad to the math backend, use torch.nn.attention.sdpa_kernel(SDPBackend.MATH)");
  // An undefined grad_out is a zero gradient (autograd's convention): so are the inputs'.
  if (!grad_out.defined() || (!grad_input_mask[0] && !grad_input_mask[1] && !grad_input_mask[2])) return {};
  const c10::DeviceGuard guard(query.device());
  const at::Tensor q4 = as_bnsd(query);
  const at::Tensor k4 = as_bnsd(key);
  const at::Tensor v4 = as_bnsd(value);
  const std::optional<at::Tensor> bias = bias_of(kBackward, attn_bias, q4, k4);
  TORCH_CHECK(run_native(table::caps::aclnnNpuFusedAttentionBackward, kBackward, {query.scalar_type()}), kBackward,
              ": aclnnNpuFusedAttentionBackward is not available for ", query.scalar_type());
  const bool dropout = dropout_p > 0.0;
  TORCH_CHECK(!dropout || (philox_seed.defined() && philox_offset.defined()), kBackward,
              ": dropout needs the forward's philox_seed and philox_offset");
  const int64_t seed = dropout ? philox_seed.item<int64_t>() : 0;
  const int64_t offset = dropout ? philox_offset.item<int64_t>() : 0;
  at::Tensor grad_q = empty_npu(q4.sizes(), query.scalar_type(), query.device());
  at::Tensor grad_k = empty_npu(k4.sizes(), query.scalar_type(), query.device());
  at::Tensor grad_v = empty_npu(v4.sizes(), query.scalar_type(), query.device());
  NPU_RUN(aclnnNpuFusedAttentionBackward, as_bnsd(grad_out), q4, k4, v4, bias, as_bnsd(out),
          query.dim() == 3 ? logsumexp.unsqueeze(0) : logsumexp,
          scale_of(query, scale), is_causal, dropout_p, seed, offset, grad_q, grad_k, grad_v);
  if (query.dim() == 3) {
    grad_q = grad_q.squeeze(0);
    grad_k = grad_k.squeeze(0);
    grad_v = grad_v.squeeze(0);
  }
  return {grad_input_mask[0] ? grad_q : at::Tensor(), grad_input_mask[1] ? grad_k : at::Tensor(),
          grad_input_mask[2] ? grad_v : at::Tensor(), at::Tensor()};
}

}  // namespace npu::ops

namespace at::native {
// scaled_dot_product_attention asks this stub, not the _fused_sdp_choice
// operator, which backend serves an npu call.
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &npu::ops::npu_sdp_choice);
}  // namespace at::native
