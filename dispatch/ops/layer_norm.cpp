// native_layer_norm and its backward (ops/table/norm.yaml, `impl:`): PyTorch
// has no meta function for them, so the outputs are made here as CPU's
// layer_norm_cpu makes them (a contiguous output; mean and rstd of the
// leading dims then ones, float beside a float16/bfloat16 input with float
// parameters), then one aclnnLayerNorm / aclnnLayerNormBackward launch.
#include <array>
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
using Result3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

Result3 native_layer_norm(const at::Tensor& input, c10::SymIntArrayRef normalized_shape_sym, const OptTensor& weight,
                          const OptTensor& bias, double eps) {
  const at::IntArrayRef normalized_shape = C10_AS_INTARRAYREF_SLOW(normalized_shape_sym);
  if (!npu::run_native(caps::aclnnLayerNorm, "native_layer_norm", {input.scalar_type()})) {
    return npu::fallback_call<Result3>("native_layer_norm", input, normalized_shape, weight, bias, eps);
  }
  check_normalized_shape("layer_norm", input, normalized_shape, weight, bias);
  const at::ScalarType stats = norm_stats_dtype("layer_norm", input, {&weight, &bias});
  const auto k = static_cast<int64_t>(normalized_shape.size());
  at::Tensor out = at::empty(input.sizes(), input.options(), at::MemoryFormat::Contiguous);
  at::Tensor mean = at::empty(row_stats_shape(input, k), input.options().dtype(stats));
  at::Tensor rstd = at::empty(row_stats_shape(input, k), input.options().dtype(stats));
  // Rows of no elements still get their statistics (mean 0, rstd NaN).
  if (mean.numel() > 0) NPU_RUN(aclnnLayerNorm, input, normalized_shape, weight, bias, eps, out, mean, rstd);
  return {std::move(out), std::move(mean), std::move(rstd)};
}

Result3 native_layer_norm_backward(const at::Tensor& grad_out, const at::Tensor& input,
                                   c10::SymIntArrayRef normalized_shape_sym, const at::Tensor& mean,
                                   const at::Tensor& rstd, const OptTensor& weight, const OptTensor& bias,
                                   std::array<bool, 3> output_mask) {
  const at::IntArrayRef normalized_shape = C10_AS_INTARRAYREF_SLOW(normalized_shape_sym);
  if (!npu::run_native(caps::aclnnLayerNormBackward, "native_layer_norm_backward",
                       {input.scalar_type(), grad_out.scalar_type()})) {
    return npu::fallback_call<Result3>("native_layer_norm_backward", grad_out, input, normalized_shape, mean, rstd,
                                       weight, bias, output_mask);
  }
  check_normalized_shape("layer_norm_backward", input, normalized_shape, weight, bias);
  at::Tensor grad_input;
  at::Tensor grad_weight;
  at::Tensor grad_bias;
  if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options(), at::MemoryFormat::Contiguous);
  if (output_mask[1] && defined(weight)) grad_weight = at::empty_like(*weight, at::MemoryFormat::Contiguous);
  if (output_mask[2] && defined(bias)) grad_bias = at::empty_like(*bias, at::MemoryFormat::Contiguous);
  if (input.numel() == 0) {
    // No rows: the parameter gradients are sums over nothing.
    if (grad_weight.defined()) grad_weight.zero_();
    if (grad_bias.defined()) grad_bias.zero_();
    return {grad_input, grad_weight, grad_bias};
  }
  if (grad_input.defined() || grad_weight.defined() || grad_bias.defined()) {
    const std::array<bool, 3> launched = {grad_input.defined(), grad_weight.defined(), grad_bias.defined()};
    NPU_RUN(aclnnLayerNormBackward, grad_out, input, normalized_shape, mean, rstd, weight, bias, launched,
            optional_of(grad_input), optional_of(grad_weight), optional_of(grad_bias));
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace npu::ops
