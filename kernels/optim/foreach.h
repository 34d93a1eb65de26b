// Pointwise ops over tensor lists (CANN's aclnnForeach* family): one task
// covers a whole list, its tensors spread over oneTBB workers, each tensor
// walked by the strided loop. Floating dtypes only; float16/bfloat16 compute
// in float and round once, as PyTorch's CPU kernels do.
#pragma once

#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

enum class ForeachFn {
  AddScalar,    // out = a + s
  AddList,      // out = a + s * b        (s: alpha)
  SubList,      // out = a - s * b        (s: alpha)
  MulScalar,    // out = a * s
  MulList,      // out = a * b
  DivScalar,    // out = a / s
  DivList,      // out = a / b
  MaximumList,  // out = max(a, b), NaN propagating
  Sqrt,         // out = sqrt(a)
  Neg,          // out = -a
  Addcmul,      // out = a + s * b * c
  Addcdiv,      // out = a + s * (b / c)
  LerpScalar,   // out = lerp(a, b, s)
};

// The operands of one tensor of the lists. Inputs the op does not use stay
// empty; the used ones share out's sizes and dtype. `scalar` is this
// tensor's scalar (a list's own entry for the ScalarList forms).
struct ForeachItem {
  TensorView out;
  TensorView a;
  TensorView b;
  TensorView c;
  double scalar = 0.0;
};

void foreach_pointwise(ForeachFn fn, const std::vector<ForeachItem>& items);

// out[i] (0-dim, floating) = the p-norm of in[i] over all its elements
// (p as reduce_norm takes it: 0, 1, 2, +-inf or any real), computed in
// out[i]'s dtype.
void foreach_norm(const std::vector<TensorView>& in, const std::vector<TensorView>& out, double p);

// Gradient unscaling for mixed precision (GradScaler): every element of
// every grads[i] is multiplied by inv_scale (1-element float32), and
// found_inf (1-element float32) becomes 1 when any element was inf or NaN
// (it is never reset to 0 here).
void foreach_non_finite_check_and_unscale(const std::vector<TensorView>& grads, const TensorView& found_inf,
                                          const TensorView& inv_scale);

// The loss scale's update after a step (1-element tensors: scale float32,
// growth_tracker int32, found_inf float32), in place: on found_inf the
// scale is multiplied by backoff and the tracker reset; otherwise the tracker
// counts the step and, reaching growth_interval, the scale grows by
// growth_factor (only if the grown scale is finite) and the tracker resets.
void amp_update_scale(const TensorView& scale, const TensorView& growth_tracker, const TensorView& found_inf,
                      double growth_factor, double backoff_factor, int64_t growth_interval);

}  // namespace npu::kernels
