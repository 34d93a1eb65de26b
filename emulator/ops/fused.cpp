// The fused LLM ops' task makers (fused.h): host checks naming CANN's
// parameters, then kernels/fused/ (and kernels/norm/ for the RMS norm half
// of aclnnAddRmsNorm).
#include "emulator/ops/fused.h"

#include <optional>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/fused/fused.h"
#include "kernels/norm/row_norm.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kn::TensorView;

const TensorView* ptr(const std::optional<TensorView>& v) { return v ? &*v : nullptr; }

bool is_float(model::DType d) {
  return d == model::DType::Float32 || d == model::DType::Float16 || d == model::DType::BFloat16 ||
         d == model::DType::Float64;
}

void require_float(const TensorView& v, const char* name) {
  if (!is_float(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be float16, bfloat16, float32 or float64, got " +
                                      model::dtype_name(v.dtype));
  }
}

void require_same_shape(const TensorView& v, const kn::Shape& want, const char* name) {
  if (v.sizes != want) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have shape " + kn::shape_str(want) + ", got " +
                                      kn::shape_str(v.sizes));
  }
}

void require_broadcast(const TensorView& v, const kn::Shape& to, const char* name) {
  try {
    (void)kn::broadcast_to(v, to);
  } catch (const kn::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must broadcast to " + kn::shape_str(to) + ": " + e.what());
  }
}

kn::RotaryMode rotary_mode(int64_t mode) {
  if (mode == 0) return kn::RotaryMode::kHalf;
  if (mode == 1) return kn::RotaryMode::kInterleave;
  fail(ACLNN_ERR_PARAM_INVALID, "mode " + std::to_string(mode) +
                                    " is not supported: 0 (half, rotate_half) or 1 (interleave)");
}

void check_rotary(const TensorView& x, const TensorView& cos, const TensorView& sin) {
  require_float(x, "x");
  require_float(cos, "cos");
  require_float(sin, "sin");
  if (x.dim() == 0 || x.sizes.back() % 2 != 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "x's last dim must be even, got shape " + kn::shape_str(x.sizes));
  }
  require_broadcast(cos, x.sizes, "cos");
  require_broadcast(sin, x.sizes, "sin");
}

int64_t wrap(int64_t dim, int64_t rank, const char* name) {
  if (dim < -rank || dim >= rank) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " " + std::to_string(dim) + " is out of range for rank " +
                                      std::to_string(rank));
  }
  return dim < 0 ? dim + rank : dim;
}

}  // namespace

TaskBody add_rms_norm_task(const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, double epsilon,
                           aclTensor* yOut, aclTensor* rstdOut, aclTensor* xOut) {
  const auto v = require_views<6>(
      {{{x1, "x1"}, {x2, "x2"}, {gamma, "gamma"}, {yOut, "yOut"}, {rstdOut, "rstdOut"}, {xOut, "xOut"}}});
  require_float(v[0], "x1");
  require_same_shape(v[1], v[0].sizes, "x2");
  require_same_shape(v[3], v[0].sizes, "yOut");
  require_same_shape(v[5], v[0].sizes, "xOut");
  const int64_t k = v[2].dim();
  if (k == 0 || k > v[0].dim()) fail(ACLNN_ERR_PARAM_INVALID, "gamma must span 1 to rank(x1) trailing dims of x1");
  for (int64_t i = 0; i < k; ++i) {
    if (v[2].sizes[i] != v[0].sizes[v[0].dim() - k + i]) {
      fail(ACLNN_ERR_PARAM_INVALID, "gamma " + kn::shape_str(v[2].sizes) + " must match the trailing dims of x1 " +
                                        kn::shape_str(v[0].sizes));
    }
  }
  int64_t rows = 1;
  for (int64_t i = 0; i < v[0].dim() - k; ++i) rows *= v[0].sizes[i];
  if (v[4].numel() != rows) {
    fail(ACLNN_ERR_PARAM_INVALID, "rstdOut must have " + std::to_string(rows) + " elements (x1's leading dims)");
  }
  return task([a = v[0], b = v[1], w = v[2], y = v[3], r = v[4], x = v[5], k, epsilon] {
    kn::add_same_shape(x, a, b);
    kn::RmsNormForward args;
    args.normalized_dims = k;
    args.weight = &w;
    args.eps = epsilon;
    args.rstd = &r;
    kn::rms_norm(y, x, args);
  });
}

TaskBody rotary_position_embedding_task(const aclTensor* x, const aclTensor* cos, const aclTensor* sin, int64_t mode,
                                        aclTensor* out) {
  const auto v = require_views<4>({{{x, "x"}, {cos, "cos"}, {sin, "sin"}, {out, "out"}}});
  check_rotary(v[0], v[1], v[2]);
  require_same_shape(v[3], v[0].sizes, "out");
  const kn::RotaryMode m = rotary_mode(mode);
  return task([x = v[0], c = v[1], s = v[2], o = v[3], m] { kn::rotary_mul(o, x, c, s, m); });
}

TaskBody rotary_position_embedding_grad_task(const aclTensor* dy, const aclTensor* cos, const aclTensor* sin,
                                             const aclTensor* xOptional, int64_t mode, aclTensor* dxOut,
                                             aclTensor* dcosOut, aclTensor* dsinOut) {
  const auto v = require_views<3>({{{dy, "dy"}, {cos, "cos"}, {sin, "sin"}}});
  check_rotary(v[0], v[1], v[2]);
  const kn::RotaryMode m = rotary_mode(mode);
  const auto x = optional_view(xOptional);
  if ((dcosOut != nullptr || dsinOut != nullptr) && !x) {
    fail(ACLNN_ERR_PARAM_NULLPTR, "xOptional is required for dcosOut/dsinOut");
  }
  if (x) require_same_shape(*x, v[0].sizes, "xOptional");
  const auto dx = optional_view(dxOut), dc = optional_view(dcosOut), ds = optional_view(dsinOut);
  if (dx) require_same_shape(*dx, v[0].sizes, "dxOut");
  if (dc) require_same_shape(*dc, v[1].sizes, "dcosOut");
  if (ds) require_same_shape(*ds, v[2].sizes, "dsinOut");
  return task([g = v[0], c = v[1], s = v[2], x, dx, dc, ds, m] {
    // Without x only dx is wanted: its value does not depend on x.
    kn::rotary_mul_backward(g, x ? *x : g, c, s, m, ptr(dx), ptr(dc), ptr(ds));
  });
}

TaskBody apply_rotary_pos_emb_task(aclTensor* queryRef, aclTensor* keyRef, const aclTensor* cos,
                                   const aclTensor* sin, int64_t layout) {
  const auto v = require_views<4>({{{queryRef, "queryRef"}, {keyRef, "keyRef"}, {cos, "cos"}, {sin, "sin"}}});
  // CANN's layout codes: 1 BSND (and BSH), 2 SBND, 3 BNSD; cos/sin carry 1 in
  // the head dim of that layout, so they broadcast to query and key as given.
  if (layout < 1 || layout > 3) {
    fail(ACLNN_ERR_PARAM_INVALID, "layout " + std::to_string(layout) +
                                      " is not supported: 1 (BSND/BSH), 2 (SBND) or 3 (BNSD); TND (4) is not emulated");
  }
  check_rotary(v[0], v[2], v[3]);
  check_rotary(v[1], v[2], v[3]);
  return task([q = v[0], k = v[1], c = v[2], s = v[3]] {
    kn::rotary_mul(q, q, c, s, kn::RotaryMode::kHalf);
    kn::rotary_mul(k, k, c, s, kn::RotaryMode::kHalf);
  });
}

TaskBody swiglu_task(const aclTensor* x, int64_t dim, aclTensor* out) {
  const auto v = require_views<2>({{{x, "x"}, {out, "out"}}});
  require_float(v[0], "x");
  const int64_t d = wrap(dim, v[0].dim(), "dim");
  if (v[0].sizes[d] % 2 != 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "x's size along dim " + std::to_string(dim) + " must be even, got " +
                                      kn::shape_str(v[0].sizes));
  }
  kn::Shape want = v[0].sizes;
  want[d] /= 2;
  require_same_shape(v[1], want, "out");
  return task([x = v[0], o = v[1], d] { kn::swiglu(o, x, d); });
}

TaskBody swiglu_grad_task(const aclTensor* yGrad, const aclTensor* x, int64_t dim, aclTensor* out) {
  const auto v = require_views<3>({{{yGrad, "yGrad"}, {x, "x"}, {out, "out"}}});
  require_float(v[1], "x");
  const int64_t d = wrap(dim, v[1].dim(), "dim");
  if (v[1].sizes[d] % 2 != 0) fail(ACLNN_ERR_PARAM_INVALID, "x's size along dim must be even");
  kn::Shape half = v[1].sizes;
  half[d] /= 2;
  require_same_shape(v[0], half, "yGrad");
  require_same_shape(v[2], v[1].sizes, "out");
  return task([g = v[0], x = v[1], o = v[2], d] { kn::swiglu_backward(o, g, x, d); });
}

TaskBody scaled_masked_softmax_task(const aclTensor* x, const aclTensor* mask, double scale, bool fixedTriuMask,
                                    aclTensor* y) {
  const auto v = require_views<2>({{{x, "x"}, {y, "y"}}});
  require_float(v[0], "x");
  require_same_shape(v[1], v[0].sizes, "y");
  const auto m = optional_view(mask);
  if (m && !fixedTriuMask) require_broadcast(*m, v[0].sizes, "mask");
  return task([x = v[0], o = v[1], m, scale, fixedTriuMask] {
    kn::scaled_masked_softmax(o, x, ptr(m), scale, fixedTriuMask);
  });
}

TaskBody scaled_masked_softmax_backward_task(const aclTensor* gradOutput, const aclTensor* y, const aclTensor* mask,
                                             double scale, bool fixTriuMask, aclTensor* out) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {y, "y"}, {out, "out"}}});
  require_float(v[1], "y");
  require_same_shape(v[0], v[1].sizes, "gradOutput");
  require_same_shape(v[2], v[1].sizes, "out");
  const auto m = optional_view(mask);
  if (m && !fixTriuMask) require_broadcast(*m, v[1].sizes, "mask");
  return task([g = v[0], yv = v[1], o = v[2], m, scale, fixTriuMask] {
    kn::scaled_masked_softmax_backward(o, g, yv, ptr(m), scale, fixTriuMask);
  });
}

TaskBody moe_gating_top_k_softmax_task(const aclTensor* x, const aclTensor* finishedOptional, int64_t k,
                                       aclTensor* yOut, aclTensor* expertIdxOut, aclTensor* rowIdxOut) {
  const auto v = require_views<4>(
      {{{x, "x"}, {yOut, "yOut"}, {expertIdxOut, "expertIdxOut"}, {rowIdxOut, "rowIdxOut"}}});
  require_float(v[0], "x");
  if (v[0].dim() < 2 || v[0].dim() > 3) fail(ACLNN_ERR_PARAM_INVALID, "x must be 2-D or 3-D [..., experts]");
  const int64_t experts = v[0].sizes.back();
  if (k < 1 || k > experts) {
    fail(ACLNN_ERR_PARAM_INVALID, "k must be in [1, " + std::to_string(experts) + "], got " + std::to_string(k));
  }
  kn::Shape want = v[0].sizes;
  want.back() = k;
  require_same_shape(v[1], want, "yOut");
  require_same_shape(v[2], want, "expertIdxOut");
  require_same_shape(v[3], want, "rowIdxOut");
  if (v[2].dtype != model::DType::Int32 || v[3].dtype != model::DType::Int32) {
    fail(ACLNN_ERR_PARAM_INVALID, "expertIdxOut and rowIdxOut must be int32");
  }
  const auto f = optional_view(finishedOptional);
  if (f) {
    kn::Shape rows = v[0].sizes;
    rows.pop_back();
    require_same_shape(*f, rows, "finishedOptional");
    if (f->dtype != model::DType::Bool) fail(ACLNN_ERR_PARAM_INVALID, "finishedOptional must be bool");
  }
  return task([x = v[0], y = v[1], e = v[2], r = v[3], f, k] { kn::moe_gating_top_k_softmax(y, e, r, x, ptr(f), k); });
}

TaskBody scatter_update_task(aclTensor* data, const aclTensor* indices, const aclTensor* updates, int64_t axis) {
  const auto v = require_views<3>({{{data, "data"}, {indices, "indices"}, {updates, "updates"}}});
  if (v[1].dtype != model::DType::Int32 && v[1].dtype != model::DType::Int64) {
    fail(ACLNN_ERR_PARAM_INVALID, "indices must be int32 or int64");
  }
  if (v[2].dtype != v[0].dtype) fail(ACLNN_ERR_PARAM_INVALID, "updates must have data's dtype");
  if (v[0].dim() < 2 || v[2].dim() != v[0].dim()) {
    fail(ACLNN_ERR_PARAM_INVALID, "data and updates must share one rank of at least 2");
  }
  (void)wrap(axis, v[0].dim(), "axis");
  return task([d = v[0], i = v[1], u = v[2], axis] { kn::scatter_update(d, i, u, axis); });
}

}  // namespace npu::emu
