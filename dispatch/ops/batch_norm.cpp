// native_batch_norm and its backward (ops/table/norm.yaml, `impl:`): PyTorch
// has no meta function for them, so the outputs are made here as CPU makes
// them (output in input's memory format; save_mean/save_invstd [C] when
// training, [0] otherwise, float beside a float16/bfloat16 input with float
// parameters). The running statistics are updated by aclnnBatchNorm itself.
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

namespace {

// CPU's dtype of the saved statistics: float for a reduced-float input whose
// parameters are float ("mixed type"), else the input's dtype.
at::ScalarType stats_dtype(const at::Tensor& input, std::initializer_list<const OptTensor*> params) {
  if (input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16) {
    for (const OptTensor* p : params) {
      if (defined(*p) && p->value().scalar_type() == at::kFloat) return at::kFloat;
    }
  }
  return input.scalar_type();
}

// The dtype of grad_weight / grad_bias: weight's, else that of the saved
// (or running) statistics, else the input's.
at::ScalarType param_grad_dtype(const at::Tensor& input, const OptTensor& weight, const OptTensor& save_mean,
                                const OptTensor& running_mean) {
  if (defined(weight)) return weight->scalar_type();
  if (defined(save_mean) && save_mean->numel() > 0) return save_mean->scalar_type();
  if (defined(running_mean)) return running_mean->scalar_type();
  return input.scalar_type();
}

// CPU's rule: the parameters share the input's dtype, or are all float
// beside a float16/bfloat16 input.
void check_param_dtypes(const at::Tensor& input, std::initializer_list<const OptTensor*> params) {
  const at::ScalarType stats = stats_dtype(input, params);
  for (const OptTensor* p : params) {
    TORCH_CHECK(!defined(*p) || p->value().scalar_type() == stats, "batch_norm: mixed dtypes: weight, bias, ",
                "running_mean and running_var must have the input's dtype (", input.scalar_type(),
                ") or all be float beside a float16/bfloat16 input, got ", p->value().scalar_type());
  }
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm(const at::Tensor& input, const OptTensor& weight,
                                                                 const OptTensor& bias, const OptTensor& running_mean,
                                                                 const OptTensor& running_var, bool training,
                                                                 double momentum, double eps) {
  if (!npu::run_native(caps::aclnnBatchNorm, "native_batch_norm", {input.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        "native_batch_norm", input, weight, bias, running_mean, running_var, training, momentum, eps);
  }
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected input with at least 2 dims ([N, C, ...]), got ", input.dim(),
              "-dim input");
  TORCH_CHECK(!training || input.numel() > 0,
              "input tensor must have at least one element, but got input_sizes = ", input.sizes());
  TORCH_CHECK(training || (defined(running_mean) && defined(running_var)),
              "batch_norm: running_mean and running_var must be defined in evaluation mode");
  check_param_dtypes(input, {&weight, &bias, &running_mean, &running_var});
  const int64_t c = input.size(1);
  const auto stats = input.options().dtype(stats_dtype(input, {&weight, &bias, &running_mean, &running_var}));
  at::Tensor output = at::empty_like(input, input.suggest_memory_format());
  at::Tensor save_mean = at::empty({training ? c : 0}, stats);
  at::Tensor save_invstd = at::empty({training ? c : 0}, stats);
  if (input.numel() > 0) {
    NPU_RUN(aclnnBatchNorm, input, weight, bias, running_mean, running_var, training, momentum, eps, output,
            training ? OptTensor(save_mean) : OptTensor(), training ? OptTensor(save_invstd) : OptTensor());
  }
  return {std::move(output), std::move(save_mean), std::move(save_invstd)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const OptTensor& weight, const OptTensor& running_mean,
    const OptTensor& running_var, const OptTensor& save_mean, const OptTensor& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  if (!npu::run_native(caps::aclnnBatchNormBackward, "native_batch_norm_backward",
                       {input.scalar_type(), grad_out.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        "native_batch_norm_backward", grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,
        train, eps, output_mask);
  }
  TORCH_CHECK(input.dim() >= 2, "batch_norm_backward: expected input with at least 2 dims, got ", input.dim());
  const int64_t c = input.size(1);
  const auto params = input.options().dtype(param_grad_dtype(input, weight, save_mean, running_mean));
  at::Tensor grad_input;
  at::Tensor grad_weight;
  at::Tensor grad_bias;
  std::tie(grad_input, grad_weight, grad_bias) = channel_norm_grads(input, c, params, output_mask);
  if (input.numel() == 0) return with_zero_param_grads(grad_input, grad_weight, grad_bias);
  NPU_RUN(aclnnBatchNormBackward, grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
          eps, output_mask, optional_of(grad_input), optional_of(grad_weight), optional_of(grad_bias));
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace npu::ops
