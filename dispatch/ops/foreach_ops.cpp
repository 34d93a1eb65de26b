// The _foreach_* schemas of ops/table/foreach.yaml: one aclnn launch per
// list. PyTorch runs these ops on CPU and on PrivateUse1 as a loop of
// per-tensor ops (its *_slow kernels); lists the foreach entries cannot
// take keep that loop, so results and errors stay CPU's: integer, bool or
// complex tensors (type promotion), mixed dtypes or shapes along a
// position, complex scalars, tensors on other devices, private formats,
// in-place targets with internal or partial overlap, empty lists.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <vector>

#include <ATen/MemoryOverlap.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_maximum_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_norm_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/tensor.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/foreach_args.h"
#include "dispatch/ops/foreach_route.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = table::caps;
using at::TensorList;
using List = at::ITensorListRef;

bool real_scalar(const at::Scalar& s) { return !s.isComplex(); }
bool all_real_scalars(ScalarList scalars) {
  for (const at::Scalar& s : scalars) {
    if (s.isComplex()) return false;
  }
  return true;
}

// A 0-dim real tensor on self's device: the scalar the .Tensor forms take (a
// 1-element tensor with dims would broadcast self's 0-dim entries). A 0-dim
// entry of self promotes with it as with any tensor (float16 * float32 is
// float32): the functional form then needs the loop for its result dtype;
// in place, the result is rounded back to the entry's dtype, and computing
// in the entry's opmath type (float for float16/bfloat16) is the same
// computation. Anything else (a CPU tensor, complex) keeps the loop.
bool device_scalar(const at::Tensor& t, TensorList self, bool in_place) {
  if (self.empty() || !t.defined() || t.dim() != 0 || t.device() != self[0].device() ||
      at::isComplexType(t.scalar_type()) || any_private_format(t)) {
    return false;
  }
  return std::all_of(self.begin(), self.end(), [&](const at::Tensor& s) {
    const at::ScalarType type = at::result_type(s, t);
    return type == s.scalar_type() || (in_place && at::isReducedFloatingType(s.scalar_type()) && type == at::kFloat);
  });
}

std::vector<at::Tensor> empty_results(TensorList self) {
  std::vector<at::Tensor> out;
  out.reserve(self.size());
  for (const at::Tensor& t : self) out.push_back(at::empty_like(t, at::MemoryFormat::Preserve));
  return out;
}

// The per-tensor scalars of a ScalarList form as a 1-D device tensor (the
// aclTensor CANN's Addc*ScalarList ops take), in float64 for float64 lists
// and float32 otherwise: the precision PyTorch's kernels use them in. Staged
// in pinned host memory so the copy stays in flight: a pageable source would
// make every call (two per AdamW step) wait for the stream.
at::Tensor scalars_tensor(ScalarList scalars, TensorList self) {
  const bool dbl = self[0].scalar_type() == at::kDouble;
  at::Tensor host = at::empty({static_cast<int64_t>(scalars.size())},
                              at::TensorOptions().dtype(dbl ? at::kDouble : at::kFloat).pinned_memory(true));
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    if (dbl) {
      host.data_ptr<double>()[i] = scalars[i].toDouble();
    } else {
      host.data_ptr<float>()[i] = static_cast<float>(scalars[i].toDouble());
    }
  }
  return host.to(self[0].device(), /*non_blocking=*/true);
}

// A norm without an identity (order +-inf or negative) of an empty tensor
// is an error: the loop raises linalg.vector_norm's own.
std::vector<at::Tensor> foreach_norm(TensorList self, const at::Scalar& ord, std::optional<at::ScalarType> dtype) {
  bool ok = real_scalar(ord);
  if (ok) {
    const double p = ord.toDouble();
    for (const at::Tensor& t : self) {
      ok &= !(dtype && *dtype != t.scalar_type()) && !(t.numel() == 0 && (std::isinf(p) || p < 0));
    }
  }
  if (!ok || !foreach_fast_route({self}, false) ||
      !run_native(caps::aclnnForeachNorm, "_foreach_norm.Scalar", foreach_dtypes(self))) {
    return at::native::foreach_tensor_norm_slow(self, ord, dtype);
  }
  const ListDeviceGuard guard(self);
  std::vector<at::Tensor> out;
  out.reserve(self.size());
  for (const at::Tensor& t : self) out.push_back(at::empty({}, t.options()));
  NPU_RUN(aclnnForeachNorm, List(self), ord, at::ITensorListRef(out));
  return out;
}

// CUDA's checks and semantics: found_inf and inv_scale 1-element float32
// tensors on the grads' device; grads floating, any dtype mix (CUDA groups
// them by dtype; the one entry takes them all).
void amp_foreach_non_finite_check_and_unscale_(TensorList self, at::Tensor& found_inf, const at::Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == at::kFloat, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  if (self.empty()) return;
  for (const at::Tensor& t : self) {
    TORCH_CHECK(t.device() == found_inf.device() && t.device() == inv_scale.device(),
                "_amp_foreach_non_finite_check_and_unscale_: scaled_grads, found_inf and inv_scale must be on one "
                "device; got ", t.device(), ", ", found_inf.device(), ", ", inv_scale.device());
    TORCH_CHECK(at::isFloatingType(t.scalar_type()), "_amp_foreach_non_finite_check_and_unscale_: scaled_grads "
                "must be floating point tensors, got ", t.scalar_type());
  }
  bool native = std::all_of(self.begin(), self.end(), [](const at::Tensor& t) {
    return t.is_privateuseone() && is_list_kernel_dtype(t.scalar_type()) && !any_private_format(t) &&
           at::has_internal_overlap(t) == at::MemOverlap::No;
  });
  native = native && found_inf.is_privateuseone() && !any_private_format(found_inf) &&
           !any_private_format(inv_scale) && !overlap_across_positions({self});
  if (!native || !run_native(caps::aclnnForeachNonFiniteCheckAndUnscale, "_amp_foreach_non_finite_check_and_unscale_",
                             foreach_dtypes(self))) {
    fallback_call<void>("_amp_foreach_non_finite_check_and_unscale_", self, found_inf, inv_scale);
    return;
  }
  const ListDeviceGuard guard(self);
  NPU_RUN(aclnnForeachNonFiniteCheckAndUnscale, List(self), found_inf, inv_scale);
}

at::Tensor& amp_update_scale_(at::Tensor& self, at::Tensor& growth_tracker, const at::Tensor& found_inf,
                              double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(self.numel() == 1, "current_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(self.scalar_type() == at::kFloat, "current_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  const bool native = self.is_privateuseone() && growth_tracker.device() == self.device() &&
                      found_inf.device() == self.device() && !any_private_format(self) &&
                      !any_private_format(growth_tracker) && !any_private_format(found_inf);
  if (!native || !run_native(caps::aclnnAmpUpdateScale, "_amp_update_scale_", {at::kFloat})) {
    return fallback_call<at::Tensor&>("_amp_update_scale_", self, growth_tracker, found_inf, scale_growth_factor,
                                      scale_backoff_factor, growth_interval);
  }
  NPU_RUN(aclnnAmpUpdateScale, self, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
          growth_interval, self, growth_tracker);
  return self;
}

}  // namespace npu::ops
