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
#include "kernels/loss/nll_loss.h"

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

std::optional<kn::TensorView> optional_view(const aclTensor* t) {
  if (t == nullptr) return std::nullopt;
  return t->view();
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

}  // namespace npu::emu
