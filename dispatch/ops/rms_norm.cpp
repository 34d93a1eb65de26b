// _fused_rms_norm and its backward (ops/table/norm.yaml, `impl:`): what
// torch.nn.functional.rms_norm / nn.RMSNorm call for a contiguous npu input
// whose weight has its dtype (other cases stay on PyTorch's composite of
// native ops). Registering them makes autograd use _fused_rms_norm's own
// derivative (_fused_rms_norm_backward) as on CUDA. Outputs as PyTorch's
// composite makes them: y in input's dtype, rstd of the leading dims then
// ones in the compute dtype (float beside float16/bfloat16, CANN's float32).
#include <array>
#include <limits>
#include <optional>
#include <tuple>

#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/norm_args.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using OptTensor = std::optional<at::Tensor>;

namespace {

at::ScalarType compute_dtype(const at::Tensor& input) {
  return input.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

// aclnnRmsNorm's gamma is required (as in CANN): ones for weight=None.
at::Tensor gamma_of(const at::Tensor& input, at::IntArrayRef normalized_shape, const OptTensor& weight) {
  return defined(weight) ? *weight : at::ones(normalized_shape, input.options());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> fused_rms_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                                  const OptTensor& weight, std::optional<double> eps) {
  if (!npu::run_native(caps::aclnnRmsNorm, "_fused_rms_norm", {input.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("_fused_rms_norm", input, normalized_shape, weight,
                                                                  eps);
  }
  check_normalized_shape("rms_norm", input, normalized_shape, weight, std::nullopt);
  // PyTorch's default epsilon: the machine epsilon of the compute dtype.
  const double epsilon = eps.value_or(compute_dtype(input) == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                                          : std::numeric_limits<float>::epsilon());
  const auto k = static_cast<int64_t>(normalized_shape.size());
  at::Tensor y = at::empty(input.sizes(), input.options(), at::MemoryFormat::Contiguous);
  at::Tensor rstd = at::empty(row_stats_shape(input, k), input.options().dtype(compute_dtype(input)));
  if (rstd.numel() > 0) {
    NPU_RUN(aclnnRmsNorm, input, gamma_of(input, normalized_shape, weight), epsilon, y, rstd);
  }
  return {std::move(y), std::move(rstd)};
}

std::tuple<at::Tensor, at::Tensor> fused_rms_norm_backward(const at::Tensor& grad_out, const at::Tensor& input,
                                                           at::IntArrayRef normalized_shape, const at::Tensor& rstd,
                                                           const OptTensor& weight, std::array<bool, 2> output_mask) {
  if (!npu::run_native(caps::aclnnRmsNormGrad, "_fused_rms_norm_backward",
                       {input.scalar_type(), grad_out.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("_fused_rms_norm_backward", grad_out, input,
                                                                  normalized_shape, rstd, weight, output_mask);
  }
  check_normalized_shape("rms_norm_backward", input, normalized_shape, weight, std::nullopt);
  at::Tensor grad_input;
  at::Tensor grad_weight;
  if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options(), at::MemoryFormat::Contiguous);
  if (output_mask[1] && defined(weight)) grad_weight = at::empty_like(*weight, at::MemoryFormat::Contiguous);
  if (input.numel() == 0) {
    if (grad_weight.defined()) grad_weight.zero_();
    return {grad_input, grad_weight};
  }
  if (grad_input.defined() || grad_weight.defined()) {
    NPU_RUN(aclnnRmsNormGrad, grad_out, input, rstd, gamma_of(input, normalized_shape, weight),
            optional_of(grad_input), optional_of(grad_weight));
  }
  return {grad_input, grad_weight};
}

}  // namespace npu::ops
