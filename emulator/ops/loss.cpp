// The loss family's task makers (kernels/loss/nll_loss.h): shapes, dtypes
// and the reduction are checked on the host; target values (data) when the
// task runs.
#include "emulator/ops/loss.h"

#include <optional>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/loss/margin_loss.h"
#include "kernels/loss/nll_loss.h"
#include "kernels/loss/pointwise_loss.h"

namespace npu::emu {

namespace kn = kernels;

namespace {

kn::LossReduction reduction_of(int64_t reduction) {
  if (reduction < 0 || reduction > 2) {
    fail(ACLNN_ERR_PARAM_INVALID,
         "reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(reduction));
  }
  return static_cast<kn::LossReduction>(reduction);
}

// Checks self / target / weight; returns the class count.
int64_t check_nll(bool two_d, const aclTensor* self, const aclTensor* target, const aclTensor* weight) {
  require_tensor(self, "self");
  require_tensor(target, "target");
  require_floating(self, "self");
  require_dtype(target, "target", "int64 or uint8",
                [](kn::DType d) { return d == kn::DType::Int64 || d == kn::DType::UInt8; });
  const kn::Shape& s = self->view_dims;
  const kn::Shape& t = target->view_dims;
  if (two_d) {
    if (s.size() != 4) fail(ACLNN_ERR_PARAM_INVALID, "self must be 4-dim [N, C, H, W], got " + kn::shape_str(s));
    if (t.size() != 3 || t[0] != s[0] || t[1] != s[2] || t[2] != s[3]) {
      fail(ACLNN_ERR_PARAM_INVALID, "target must have shape [N, H, W] of self " + kn::shape_str(s) + ", got " +
                                        kn::shape_str(t));
    }
  } else {
    if (s.empty() || s.size() > 2) {
      fail(ACLNN_ERR_PARAM_INVALID, "self must be 1-dim [C] or 2-dim [N, C], got " + kn::shape_str(s));
    }
    const bool ok = s.size() == 1 ? t.empty() || (t.size() == 1 && t[0] == 1) : t.size() == 1 && t[0] == s[0];
    if (!ok) {
      fail(ACLNN_ERR_PARAM_INVALID, "target " + kn::shape_str(t) + " does not match self " + kn::shape_str(s));
    }
  }
  const int64_t c = s.size() == 1 ? s[0] : s[1];
  if (weight != nullptr) {
    require_floating(weight, "weight");
    if (weight->view_dims.size() != 1 || weight->view_dims[0] != c) {
      fail(ACLNN_ERR_PARAM_INVALID, "weight must have shape [" + std::to_string(c) + "], got " +
                                        kn::shape_str(weight->view_dims));
    }
  }
  return c;
}

}  // namespace

TaskBody nll_loss_task(bool two_d, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                       int64_t reduction, int64_t ignoreIndex, aclTensor* out, aclTensor* totalWeight) {
  check_nll(two_d, self, target, weight);
  const kn::LossReduction r = reduction_of(reduction);
  const auto v = require_views<2>({{{out, "out"}, {totalWeight, "totalWeight"}}});
  if (r == kn::LossReduction::None) {
    require_shape(out, target->view_dims, "out");
  } else if (v[0].numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "out must have one element for reduction mean or sum, got " +
                                      kn::shape_str(v[0].sizes));
  }
  if (v[1].numel() != 1) fail(ACLNN_ERR_PARAM_INVALID, "totalWeight must have one element");
  return [v, x = self->view(), t = target->view(), w = optional_view(weight), r, ignoreIndex] {
    kn::nll_loss(v[0], v[1], x, t, w ? &*w : nullptr, r, ignoreIndex);
  };
}

TaskBody nll_loss_backward_task(bool two_d, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* target, const aclTensor* weight, int64_t reduction,
                                int64_t ignoreIndex, const aclTensor* totalWeight, aclTensor* out) {
  check_nll(two_d, self, target, weight);
  const kn::LossReduction r = reduction_of(reduction);
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {totalWeight, "totalWeight"}, {out, "out"}}});
  require_shape(out, self->view_dims, "out");
  if (r == kn::LossReduction::None) {
    require_shape(gradOutput, target->view_dims, "gradOutput");
  } else if (v[0].numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "gradOutput must have one element for reduction mean or sum");
  }
  return [v, x = self->view(), t = target->view(), w = optional_view(weight), r, ignoreIndex] {
    kn::nll_loss_backward(v[2], v[0], x, t, w ? &*w : nullptr, r, ignoreIndex, v[1]);
  };
}

namespace {

// The losses' outputs are floating; out's shape is the broadcast shape
// (reduction none) or one element.
void check_reduced_out(const aclTensor* out, const kernels::Shape& unreduced, kn::LossReduction r, const char* name) {
  require_tensor(out, name);
  require_floating(out, name);
  if (r == kn::LossReduction::None) {
    require_shape(out, unreduced, name);
  } else if (out->view().numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have one element for reduction mean or sum, got " +
                                      kn::shape_str(out->view_dims));
  }
}

kn::Shape broadcast_of(const kn::Shape& a, const kn::Shape& b, const char* what) {
  try {
    return kn::broadcast_shapes(a, b);
  } catch (const kn::KernelError&) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + ": shapes " + kn::shape_str(a) + " and " + kn::shape_str(b) +
                                      " do not broadcast");
  }
}

int64_t class_count(const aclTensor* self) {
  const kn::Shape& s = self->view_dims;
  if (s.size() > 2) fail(ACLNN_ERR_PARAM_INVALID, "self must be 0-, 1- or 2-dim, got " + kn::shape_str(s));
  return s.empty() ? 1 : s.back();
}

int64_t sample_count(const aclTensor* self) { return self->view_dims.size() == 2 ? self->view_dims[0] : 1; }

// The margin losses' out: one loss per sample for reduction none (as [N],
// or 0-dim / [1] for a single sample), else one element.
void check_margin_out(const aclTensor* out, const aclTensor* self, kn::LossReduction r) {
  require_tensor(out, "out");
  require_floating(out, "out");
  const int64_t expected = r == kn::LossReduction::None ? sample_count(self) : 1;
  if (out->view().numel() != expected || out->view_dims.size() > 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "out must have " + std::to_string(expected) + " element(s) in at most 1 dim, got " +
                                      kn::shape_str(out->view_dims));
  }
}

void require_long(const aclTensor* t, const char* name) {
  require_dtype(t, name, "int64", [](kn::DType d) { return d == kn::DType::Int64; });
}

}  // namespace

TaskBody pointwise_loss_task(kn::PointwiseLoss fn, const aclTensor* self, const aclTensor* target,
                             const aclTensor* weight, double param, int64_t reduction, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(target, "target");
  require_floating(self, "self");
  require_floating(target, "target");
  const kn::LossReduction r = reduction_of(reduction);
  if ((fn == kn::PointwiseLoss::SmoothL1 || fn == kn::PointwiseLoss::Huber) && !(param >= 0)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(fn == kn::PointwiseLoss::Huber ? "delta" : "beta") +
                                      " must be >= 0, got " + std::to_string(param));
  }
  if (fn == kn::PointwiseLoss::Huber && param == 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "huber_loss does not support non-positive values for delta.");
  }
  const kn::Shape shape = broadcast_of(self->view_dims, target->view_dims, "self and target");
  if (weight != nullptr) {
    require_floating(weight, "weight");
    if (broadcast_of(weight->view_dims, shape, "weight") != shape) {
      fail(ACLNN_ERR_PARAM_INVALID, "weight " + kn::shape_str(weight->view_dims) + " must broadcast to " +
                                        kn::shape_str(shape));
    }
  }
  check_reduced_out(out, shape, r, "out");
  return [o = out->view(), x = self->view(), t = target->view(), w = optional_view(weight), fn, param, r] {
    kn::pointwise_loss(o, x, t, w ? &*w : nullptr, fn, param, r);
  };
}

TaskBody bce_with_logits_task(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                              const aclTensor* posWeight, int64_t reduction, aclTensor* out) {
  TaskBody base = pointwise_loss_task(kn::PointwiseLoss::BinaryCrossEntropyWithLogits, self, target, weight, 0.0,
                                      reduction, out);
  if (posWeight == nullptr) return base;
  require_floating(posWeight, "posWeight");
  const kn::Shape shape = broadcast_of(self->view_dims, target->view_dims, "self and target");
  if (broadcast_of(posWeight->view_dims, shape, "posWeight") != shape) {
    fail(ACLNN_ERR_PARAM_INVALID, "posWeight " + kn::shape_str(posWeight->view_dims) + " must broadcast to " +
                                      kn::shape_str(shape));
  }
  return [o = out->view(), x = self->view(), t = target->view(), w = optional_view(weight), pw = posWeight->view(),
          r = reduction_of(reduction)] {
    kn::pointwise_loss(o, x, t, w ? &*w : nullptr, kn::PointwiseLoss::BinaryCrossEntropyWithLogits, 0.0, r, &pw);
  };
}

TaskBody pointwise_loss_backward_task(kn::PointwiseLoss fn, const aclTensor* gradOutput, const aclTensor* self,
                                      const aclTensor* target, const aclTensor* weight, double param,
                                      int64_t reduction, aclTensor* gradInput) {
  require_tensor(gradOutput, "gradOutput");
  require_tensor(self, "self");
  require_tensor(target, "target");
  require_tensor(gradInput, "gradInput");
  require_floating(self, "self");
  require_floating(gradInput, "gradInput");
  const kn::LossReduction r = reduction_of(reduction);
  kn::Shape shape = broadcast_of(self->view_dims, target->view_dims, "self and target");
  shape = broadcast_of(shape, gradOutput->view_dims, "gradOutput");
  if (weight != nullptr) {
    require_floating(weight, "weight");
    shape = broadcast_of(shape, weight->view_dims, "weight");
  }
  require_shape(gradInput, shape, "gradInput");
  return [gi = gradInput->view(), g = gradOutput->view(), x = self->view(), t = target->view(),
          w = optional_view(weight), fn, param, r] {
    kn::pointwise_loss_backward(gi, g, x, t, w ? &*w : nullptr, fn, param, r);
  };
}

namespace {

void check_multi_margin(const aclTensor* self, const aclTensor* target, int64_t p, const aclTensor* weight) {
  require_tensor(self, "self");
  require_tensor(target, "target");
  require_floating(self, "self");
  require_long(target, "target");
  if (p != 1 && p != 2) fail(ACLNN_ERR_PARAM_INVALID, "p must be 1 or 2, got " + std::to_string(p));
  const int64_t c = class_count(self);
  const int64_t n = sample_count(self);
  if (target->view().numel() != n || target->view_dims.size() > 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "target must have shape [" + std::to_string(n) + "] (one class per sample of self " +
                                      kn::shape_str(self->view_dims) + "), got " + kn::shape_str(target->view_dims));
  }
  if (weight != nullptr) {
    require_floating(weight, "weight");
    if (weight->view().numel() != c || weight->view_dims.size() > 1) {
      fail(ACLNN_ERR_PARAM_INVALID, "weight must have shape [" + std::to_string(c) + "], got " +
                                        kn::shape_str(weight->view_dims));
    }
  }
}

void check_multilabel(const aclTensor* self, const aclTensor* target) {
  require_tensor(self, "self");
  require_tensor(target, "target");
  require_floating(self, "self");
  require_long(target, "target");
  class_count(self);
  if (target->view_dims != self->view_dims) {
    fail(ACLNN_ERR_PARAM_INVALID, "target must have self's shape " + kn::shape_str(self->view_dims) + ", got " +
                                      kn::shape_str(target->view_dims));
  }
}

}  // namespace

TaskBody multi_margin_loss_task(const aclTensor* self, const aclTensor* target, int64_t p, double margin,
                                const aclTensor* weight, int64_t reduction, aclTensor* out) {
  check_multi_margin(self, target, p, weight);
  const kn::LossReduction r = reduction_of(reduction);
  check_margin_out(out, self, r);
  return [o = out->view(), x = self->view(), t = target->view(), w = optional_view(weight), p, margin, r] {
    kn::multi_margin_loss(o, x, t, p, margin, w ? &*w : nullptr, r);
  };
}

TaskBody multi_margin_loss_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                                         int64_t p, double margin, const aclTensor* weight, int64_t reduction,
                                         aclTensor* gradInput) {
  check_multi_margin(self, target, p, weight);
  const kn::LossReduction r = reduction_of(reduction);
  require_tensor(gradOutput, "gradOutput");
  require_tensor(gradInput, "gradInput");
  require_shape(gradInput, self->view_dims, "gradInput");
  return [gi = gradInput->view(), g = gradOutput->view(), x = self->view(), t = target->view(),
          w = optional_view(weight), p, margin, r] {
    kn::multi_margin_loss_backward(gi, g, x, t, p, margin, w ? &*w : nullptr, r);
  };
}

TaskBody multilabel_margin_loss_task(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                     aclTensor* out, aclTensor* isTarget) {
  check_multilabel(self, target);
  const kn::LossReduction r = reduction_of(reduction);
  check_margin_out(out, self, r);
  require_tensor(isTarget, "isTarget");
  require_shape(isTarget, target->view_dims, "isTarget");
  return [o = out->view(), it = isTarget->view(), x = self->view(), t = target->view(), r] {
    kn::multilabel_margin_loss(o, it, x, t, r);
  };
}

TaskBody multilabel_margin_loss_backward_task(const aclTensor* gradOutput, const aclTensor* self,
                                              const aclTensor* target, int64_t reduction, const aclTensor* isTarget,
                                              aclTensor* gradInput) {
  check_multilabel(self, target);
  const kn::LossReduction r = reduction_of(reduction);
  require_tensor(gradOutput, "gradOutput");
  require_tensor(isTarget, "isTarget");
  require_tensor(gradInput, "gradInput");
  require_shape(isTarget, target->view_dims, "isTarget");
  require_shape(gradInput, self->view_dims, "gradInput");
  return [gi = gradInput->view(), g = gradOutput->view(), x = self->view(), t = target->view(),
          it = isTarget->view(), r] { kn::multilabel_margin_loss_backward(gi, g, x, t, r, it); };
}

}  // namespace npu::emu
