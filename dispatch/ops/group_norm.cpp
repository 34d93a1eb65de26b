// native_group_norm and its backward (ops/table/norm.yaml, `impl:`): PyTorch
// has no meta function for them, so the outputs are made here as CPU makes
// them (output in input's memory format; mean and rstd [N, group], float
// beside a float16/bfloat16 input with float parameters), then one
// aclnnGroupNorm / aclnnGroupNormBackward launch.
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

namespace {

// CPU's checks of group norm's arguments.
void check_group_norm(const at::Tensor& input, const OptTensor& weight, const OptTensor& bias, int64_t n, int64_t c,
                      int64_t hxw, int64_t group) {
  TORCH_CHECK(input.dim() >= 2, "group_norm: expected input with at least 2 dims ([N, C, ...]), got ", input.dim());
  TORCH_CHECK(group > 0, "group_norm: expected num_groups to be positive, got ", group);
  TORCH_CHECK(c % group == 0, "Expected number of channels in input to be divisible by num_groups, but got input of ",
              "shape ", input.sizes(), " and num_groups=", group);
  TORCH_CHECK(input.numel() == n * c * hxw && input.size(0) == n && input.size(1) == c,
              "group_norm: N=", n, ", C=", c, ", HxW=", hxw, " do not describe input of shape ", input.sizes());
  TORCH_CHECK(!defined(weight) || (weight->dim() == 1 && weight->numel() == c),
              "Expected weight to be a vector of size equal to the number of channels in input, but got weight of ",
              "shape ", weight->sizes(), " and input of shape ", input.sizes());
  TORCH_CHECK(!defined(bias) || (bias->dim() == 1 && bias->numel() == c),
              "Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape ",
              bias->sizes(), " and input of shape ", input.sizes());
}

}  // namespace

Result3 native_group_norm(const at::Tensor& input, const OptTensor& weight, const OptTensor& bias, c10::SymInt n_sym,
                          c10::SymInt c_sym, c10::SymInt hxw_sym, int64_t group, double eps) {
  const int64_t n = n_sym.expect_int();
  const int64_t c = c_sym.expect_int();
  const int64_t hxw = hxw_sym.expect_int();
  if (!npu::run_native(caps::aclnnGroupNorm, "native_group_norm", {input.scalar_type()})) {
    return npu::fallback_call<Result3>("native_group_norm", input, weight, bias, n, c, hxw, group, eps);
  }
  check_group_norm(input, weight, bias, n, c, hxw, group);
  const at::ScalarType stats = norm_stats_dtype("group_norm", input, {&weight, &bias});
  at::Tensor out = at::empty_like(input, input.suggest_memory_format());
  at::Tensor mean = at::empty({n, group}, input.options().dtype(stats));
  at::Tensor rstd = at::empty({n, group}, input.options().dtype(stats));
  // Groups of no elements still get their statistics (mean 0, rstd NaN).
  if (mean.numel() > 0) NPU_RUN(aclnnGroupNorm, input, weight, bias, n, c, hxw, group, eps, out, mean, rstd);
  return {std::move(out), std::move(mean), std::move(rstd)};
}

Result3 native_group_norm_backward(const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean,
                                   const at::Tensor& rstd, const OptTensor& weight, c10::SymInt n_sym,
                                   c10::SymInt c_sym, c10::SymInt hxw_sym, int64_t group,
                                   std::array<bool, 3> output_mask) {
  const int64_t n = n_sym.expect_int();
  const int64_t c = c_sym.expect_int();
  const int64_t hxw = hxw_sym.expect_int();
  if (!npu::run_native(caps::aclnnGroupNormBackward, "native_group_norm_backward",
                       {input.scalar_type(), grad_out.scalar_type()})) {
    return npu::fallback_call<Result3>("native_group_norm_backward", grad_out, input, mean, rstd, weight, n, c, hxw,
                                       group, output_mask);
  }
  check_group_norm(input, weight, std::nullopt, n, c, hxw, group);
  const auto params = input.options().dtype(defined(weight) ? weight->scalar_type() : input.scalar_type());
  at::Tensor grad_input;
  at::Tensor grad_weight;
  at::Tensor grad_bias;
  std::tie(grad_input, grad_weight, grad_bias) = channel_norm_grads(input, c, params, output_mask);
  if (input.numel() == 0) return with_zero_param_grads(grad_input, grad_weight, grad_bias);
  if (grad_input.defined() || grad_weight.defined() || grad_bias.defined()) {
    NPU_RUN(aclnnGroupNormBackward, grad_out, input, mean, rstd, weight, n, c, hxw, group, output_mask,
            optional_of(grad_input), optional_of(grad_weight), optional_of(grad_bias));
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace npu::ops
