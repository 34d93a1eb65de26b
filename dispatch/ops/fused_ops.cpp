// torch_npu's fused LLM ops on npu-emu's own backend: the PrivateUse1 kernels
// of the npu:: schemas of ops/table/fused.yaml (registered by the generated
// register_fused.cpp). Each allocates its outputs as
// op-plugin's opapi kernel does and launches the aclnn op op-plugin launches
// (ops/table/fused.yaml, norm.yaml's aclnnRmsNorm/-Grad, attention.yaml's
// aclnnFlashAttentionScore/-Grad). What the kernels do not emulate is
// refused with one error naming the argument.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/capability.h"
#include "dispatch/ops/norm_args.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using OptTensor = std::optional<at::Tensor>;

namespace {

// Under NPU_EMU_FALLBACK=error (or without the op in the loaded library) this
// raises naming the op; these schemas have no CPU kernel to fall back to.
void require_native(const npu::AclnnCapability& cap, const char* schema, c10::ArrayRef<at::ScalarType> dtypes) {
  TORCH_CHECK_NOT_IMPLEMENTED(npu::run_native(cap, schema, dtypes), "torch.ops.npu.", schema,
                              ": the loaded ACL library lacks its aclnn op or does not support dtype ",
                              dtypes.empty() ? "" : c10::toString(dtypes[0]));
}

at::ScalarType stat_dtype(const at::Tensor& x) { return x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat; }

int64_t gamma_dims(const char* op, const at::Tensor& x, const at::Tensor& gamma) {
  const int64_t k = gamma.dim();
  TORCH_CHECK(k >= 1 && k <= x.dim(), op, ": gamma must have 1 to ", x.dim(), " dims (the trailing dims of ",
              "self), got ", gamma.sizes());
  TORCH_CHECK(x.sizes().slice(x.dim() - k).equals(gamma.sizes()), op, ": gamma ", gamma.sizes(),
              " must match the trailing dims of self ", x.sizes());
  return k;
}

int64_t rotary_mode(const char* op, c10::string_view mode) {
  if (mode == "half") return 0;
  if (mode == "interleave") return 1;
  TORCH_CHECK(false, op, ": rotary_mode must be 'half' or 'interleave', got '", std::string(mode), "'");
}

void check_rotary(const char* op, const at::Tensor& x, const at::Tensor& r1, const at::Tensor& r2) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) % 2 == 0, op, ": the last dim of self must be even, got ", x.sizes());
  for (const at::Tensor* r : {&r1, &r2}) {
    TORCH_CHECK(at::infer_size(x.sizes(), r->sizes()) == x.sizes(), op, ": r1/r2 ", r->sizes(),
                " must broadcast to self ", x.sizes());
  }
}

}  // namespace

// The kernels the table binds to the npu:: schemas (ops/table/fused.yaml
// `schemas:`); the generator declares them with the dispatcher's signatures.

// --- RMS norm -----------------------------------------------------------

std::tuple<at::Tensor, at::Tensor> npu_rms_norm(const at::Tensor& self, const at::Tensor& gamma, double epsilon) {
  require_native(caps::aclnnRmsNorm, "npu_rms_norm", {self.scalar_type()});
  const int64_t k = gamma_dims("npu_rms_norm", self, gamma);
  at::Tensor y = at::empty(self.sizes(), self.options());
  at::Tensor rstd = at::empty(row_stats_shape(self, k), self.options().dtype(stat_dtype(self)));
  if (self.numel() > 0) NPU_RUN(aclnnRmsNorm, self, gamma, epsilon, y, rstd);
  return {y, rstd};
}

std::tuple<at::Tensor, at::Tensor> npu_rms_norm_backward(const at::Tensor& dy, const at::Tensor& self,
                                                         const at::Tensor& gamma, const at::Tensor& rstd) {
  require_native(caps::aclnnRmsNormGrad, "npu_rms_norm_backward", {self.scalar_type()});
  gamma_dims("npu_rms_norm_backward", self, gamma);
  TORCH_CHECK(dy.sizes().equals(self.sizes()), "npu_rms_norm_backward: dy ", dy.sizes(), " must have self's shape ",
              self.sizes());
  at::Tensor dx = at::empty(self.sizes(), self.options());
  // op-plugin's dgamma is float32 whatever gamma's dtype (float64 here for float64).
  at::Tensor dgamma = at::empty(gamma.sizes(), gamma.options().dtype(stat_dtype(self)));
  if (self.numel() == 0) return {dx, dgamma.zero_()};
  NPU_RUN(aclnnRmsNormGrad, dy.contiguous(), self, rstd, gamma, dx, dgamma);
  return {dx, dgamma};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> npu_add_rms_norm(const at::Tensor& x1, const at::Tensor& x2,
                                                                const at::Tensor& gamma, double epsilon) {
  require_native(caps::aclnnAddRmsNorm, "npu_add_rms_norm", {x1.scalar_type()});
  TORCH_CHECK(x1.sizes().equals(x2.sizes()) && x1.scalar_type() == x2.scalar_type(),
              "npu_add_rms_norm: x2 must have x1's shape and dtype, got ", x2.sizes(), " ", x2.scalar_type(),
              " beside ", x1.sizes(), " ", x1.scalar_type());
  const int64_t k = gamma_dims("npu_add_rms_norm", x1, gamma);
  at::Tensor y = at::empty(x1.sizes(), x1.options());
  at::Tensor rstd = at::empty(row_stats_shape(x1, k), x1.options().dtype(stat_dtype(x1)));
  at::Tensor x = at::empty(x1.sizes(), x1.options());
  if (x1.numel() > 0) NPU_RUN(aclnnAddRmsNorm, x1, x2, gamma, epsilon, y, rstd, x);
  return {y, rstd, x};
}

// --- rotary position embedding -------------------------------------------

at::Tensor npu_rotary_mul(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2,
                          c10::string_view rotary_mode_name, const OptTensor& rotate) {
  TORCH_CHECK(!defined(rotate), "npu_rotary_mul: rotate (aclnnRotaryPositionEmbeddingV2's rotation matrix) is not "
              "emulated: pass rotate=None");
  const int64_t mode = rotary_mode("npu_rotary_mul", rotary_mode_name);
  require_native(caps::aclnnRotaryPositionEmbedding, "npu_rotary_mul", {self.scalar_type()});
  check_rotary("npu_rotary_mul", self, r1, r2);
  at::Tensor out = at::empty(self.sizes(), self.options());
  if (self.numel() > 0) NPU_RUN(aclnnRotaryPositionEmbedding, self, r1, r2, mode, out);
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> npu_rotary_mul_backward(const at::Tensor& grad, const at::Tensor& self,
                                                                       const at::Tensor& r1, const at::Tensor& r2,
                                                                       c10::string_view rotary_mode_name) {
  const int64_t mode = rotary_mode("npu_rotary_mul_backward", rotary_mode_name);
  require_native(caps::aclnnRotaryPositionEmbeddingGrad, "npu_rotary_mul_backward", {self.scalar_type()});
  check_rotary("npu_rotary_mul_backward", self, r1, r2);
  TORCH_CHECK(grad.sizes().equals(self.sizes()), "npu_rotary_mul_backward: grad must have self's shape");
  at::Tensor dx = at::empty(self.sizes(), self.options());
  at::Tensor dr1 = at::empty(r1.sizes(), r1.options());
  at::Tensor dr2 = at::empty(r2.sizes(), r2.options());
  if (self.numel() == 0) return {dx, dr1.zero_(), dr2.zero_()};
  NPU_RUN(aclnnRotaryPositionEmbeddingGrad, grad, r1, r2, self, mode, dx, dr1, dr2);
  return {dx, dr1, dr2};
}

std::tuple<at::Tensor, at::Tensor> npu_apply_rotary_pos_emb(const at::Tensor& query, const at::Tensor& key,
                                                            const at::Tensor& cos, const at::Tensor& sin,
                                                            c10::string_view layout,
                                                            c10::string_view rotary_mode_name) {
  const int64_t mode = rotary_mode("npu_apply_rotary_pos_emb", rotary_mode_name);
  int64_t code = 0;
  if (layout == "BSND" || layout == "BSH") code = 1;
  if (layout == "SBND" || layout == "SBH") code = 2;
  if (layout == "BNSD") code = 3;
  TORCH_CHECK(code != 0, "npu_apply_rotary_pos_emb: layout must be 'BSND', 'BSH', 'SBND', 'SBH' or 'BNSD', got '",
              std::string(layout), "' (TND is not emulated)");
  check_rotary("npu_apply_rotary_pos_emb", query, cos, sin);
  check_rotary("npu_apply_rotary_pos_emb", key, cos, sin);
  if (mode == 0) {
    require_native(caps::aclnnApplyRotaryPosEmb, "npu_apply_rotary_pos_emb", {query.scalar_type()});
    if (query.numel() > 0 && key.numel() > 0) NPU_RUN(aclnnApplyRotaryPosEmb, query, key, cos, sin, code);
  } else {
    // aclnnApplyRotaryPosEmb rotates halves only (its V2 takes the mode):
    // interleaved pairs are two in-place aclnnRotaryPositionEmbedding launches.
    require_native(caps::aclnnRotaryPositionEmbedding, "npu_apply_rotary_pos_emb", {query.scalar_type()});
    if (query.numel() > 0) NPU_RUN(aclnnRotaryPositionEmbedding, query, cos, sin, mode, query);
    if (key.numel() > 0) NPU_RUN(aclnnRotaryPositionEmbedding, key, cos, sin, mode, key);
  }
  return {query, key};
}

// --- SwiGLU ---------------------------------------------------------------

at::Tensor npu_swiglu(const at::Tensor& self, int64_t dim) {
  require_native(caps::aclnnSwiGlu, "npu_swiglu", {self.scalar_type()});
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(self.size(d) % 2 == 0, "npu_swiglu: the size of dim ", dim, " must be even, got ", self.sizes());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  shape[d] /= 2;
  at::Tensor out = at::empty(shape, self.options());
  if (out.numel() > 0) NPU_RUN(aclnnSwiGlu, self, d, out);
  return out;
}

at::Tensor npu_swiglu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  require_native(caps::aclnnSwiGluGrad, "npu_swiglu_backward", {self.scalar_type()});
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  at::Tensor out = at::empty(self.sizes(), self.options());
  if (out.numel() > 0) NPU_RUN(aclnnSwiGluGrad, grad_output, self, d, out);
  return out;
}

// --- scaled masked softmax ------------------------------------------------

namespace {

double scale_of(const at::Scalar& scale) {
  TORCH_CHECK(scale.isFloatingPoint() || scale.isIntegral(false), "npu_scaled_masked_softmax: scale must be a ",
              "float or an int");
  return scale.to<double>();
}

}  // namespace

at::Tensor npu_scaled_masked_softmax(const at::Tensor& x, const at::Tensor& mask, const at::Scalar& scale,
                                     bool fixed_triu_mask) {
  require_native(caps::aclnnScaledMaskedSoftmax, "npu_scaled_masked_softmax", {x.scalar_type()});
  TORCH_CHECK(mask.scalar_type() == at::kBool, "npu_scaled_masked_softmax: mask must be bool, got ",
              mask.scalar_type());
  at::Tensor y = at::empty(x.sizes(), x.options());
  if (x.numel() > 0) NPU_RUN(aclnnScaledMaskedSoftmax, x, mask, scale_of(scale), fixed_triu_mask, y);
  return y;
}

at::Tensor npu_scaled_masked_softmax_backward(const at::Tensor& y_grad, const at::Tensor& y, const at::Tensor& mask,
                                              const at::Scalar& scale, bool fixed_triu_mask) {
  require_native(caps::aclnnScaledMaskedSoftmaxBackward, "npu_scaled_masked_softmax_backward", {y.scalar_type()});
  at::Tensor out = at::empty(y.sizes(), y.options());
  if (y.numel() > 0) {
    NPU_RUN(aclnnScaledMaskedSoftmaxBackward, y_grad.to(y.scalar_type()), y, mask, scale_of(scale), fixed_triu_mask,
            out);
  }
  return out;
}

// --- MoE gating -------------------------------------------------------------

std::tuple<at::Tensor, at::Tensor, at::Tensor> npu_moe_gating_top_k_softmax(const at::Tensor& x,
                                                                            const OptTensor& finished, int64_t k) {
  require_native(caps::aclnnMoeGatingTopKSoftmax, "npu_moe_gating_top_k_softmax", {x.scalar_type()});
  TORCH_CHECK(x.dim() == 2 || x.dim() == 3, "npu_moe_gating_top_k_softmax: x must be 2-D or 3-D, got ", x.sizes());
  TORCH_CHECK(k >= 1 && k <= x.size(-1), "npu_moe_gating_top_k_softmax: k must be in [1, ", x.size(-1), "], got ", k);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = k;
  at::Tensor y = at::empty(shape, x.options());
  at::Tensor expert_idx = at::empty(shape, x.options().dtype(at::kInt));
  at::Tensor row_idx = at::empty(shape, x.options().dtype(at::kInt));
  if (x.numel() > 0) NPU_RUN(aclnnMoeGatingTopKSoftmax, x, finished, k, y, expert_idx, row_idx);
  return {y, expert_idx, row_idx};
}

// --- scatter_update -----------------------------------------------------------

at::Tensor& scatter_update_(at::Tensor& self, const at::Tensor& indices, const at::Tensor& updates, int64_t axis) {
  require_native(caps::aclnnInplaceScatterUpdate, "scatter_update_", {self.scalar_type()});
  TORCH_CHECK(indices.scalar_type() == at::kInt || indices.scalar_type() == at::kLong,
              "scatter_update: indices must be int32 or int64, got ", indices.scalar_type());
  TORCH_CHECK(updates.scalar_type() == self.scalar_type(), "scatter_update: updates must have self's dtype ",
              self.scalar_type(), ", got ", updates.scalar_type());
  TORCH_CHECK(self.dim() >= 2 && updates.dim() == self.dim(), "scatter_update: self and updates must share one rank ",
              "of at least 2, got ", self.sizes(), " and ", updates.sizes());
  const int64_t ax = c10::maybe_wrap_dim(axis, self.dim());
  TORCH_CHECK(ax != 0, "scatter_update: axis must not be 0 (the batch dim)");
  if (updates.numel() > 0) NPU_RUN(aclnnInplaceScatterUpdate, self, indices, updates, axis);
  return self;
}

at::Tensor scatter_update(const at::Tensor& self, const at::Tensor& indices, const at::Tensor& updates, int64_t axis) {
  at::Tensor out = self.clone(at::MemoryFormat::Contiguous);
  scatter_update_(out, indices, updates, axis);
  return out;
}

}  // namespace npu::ops
