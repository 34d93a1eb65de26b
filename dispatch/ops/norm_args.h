// Argument rules the normalization dispatch functions share
// (dispatch/ops/layer_norm.cpp, group_norm.cpp, rms_norm.cpp, batch_norm.cpp):
// CPU's mixed-dtype rule, the shape of saved per-row statistics and the
// gradients of a per-channel norm's backward.
#pragma once

#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>

namespace npu::ops {

inline bool defined(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

inline std::optional<at::Tensor> optional_of(const at::Tensor& t) {
  return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt;
}

// The gradients a per-channel norm backward (batch, group) returns, made as
// output_mask asks: grad_input like input (in its memory format), grad_weight
// and grad_bias [C] with `params`' options; the others undefined.
inline std::tuple<at::Tensor, at::Tensor, at::Tensor> channel_norm_grads(const at::Tensor& input, int64_t c,
                                                                       const at::TensorOptions& params,
                                                                       std::array<bool, 3> output_mask) {
  at::Tensor grad_input;
  at::Tensor grad_weight;
  at::Tensor grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, input.suggest_memory_format());
  if (output_mask[1]) grad_weight = at::empty({c}, params);
  if (output_mask[2]) grad_bias = at::empty({c}, params);
  return {grad_input, grad_weight, grad_bias};
}

// The result of a backward over an empty input: nothing to reduce, the
// parameter gradients are sums over no element.
inline std::tuple<at::Tensor, at::Tensor, at::Tensor> with_zero_param_grads(const at::Tensor& grad_input,
                                                                          const at::Tensor& grad_weight,
                                                                          const at::Tensor& grad_bias) {
  if (grad_weight.defined()) grad_weight.zero_();
  if (grad_bias.defined()) grad_bias.zero_();
  return {grad_input, grad_weight, grad_bias};
}

// CPU's rule for affine parameters: the input's dtype, or float beside a
// float16/bfloat16 input ("mixed"), whose statistics are then float. Returns
// the statistics' dtype; `op` names the op in the error.
inline at::ScalarType norm_stats_dtype(const char* op, const at::Tensor& input,
                                       std::initializer_list<const std::optional<at::Tensor>*> params) {
  const bool reduced = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16;
  bool mixed = false;
  for (const auto* p : params) mixed = mixed || (reduced && defined(*p) && p->value().scalar_type() == at::kFloat);
  const at::ScalarType expected = mixed ? at::kFloat : input.scalar_type();
  for (const auto* p : params) {
    TORCH_CHECK(!defined(*p) || p->value().scalar_type() == expected, op, ": mixed dtypes: weight and bias must have ",
                "the input's dtype (", input.scalar_type(), ") or all be float beside a float16/bfloat16 input, got ",
                p->value().scalar_type());
  }
  return expected;
}

// The saved statistics' shape of a norm over the last `k` dims: the leading
// dims, then k ones (CPU's layer_norm and RMS norm keep that shape).
inline std::vector<int64_t> row_stats_shape(const at::Tensor& input, int64_t k) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - k);
  shape.insert(shape.end(), k, 1);
  return shape;
}

// CPU's checks of a normalized_shape against input, weight and bias.
inline void check_normalized_shape(const char* op, const at::Tensor& input, at::IntArrayRef normalized_shape,
                                   const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias) {
  const auto k = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(k >= 1, op, ": expected normalized_shape to be at least 1-dimensional, i.e., containing at least one ",
              "element, but got normalized_shape = ", normalized_shape);
  TORCH_CHECK(!defined(weight) || weight->sizes().equals(normalized_shape), op,
              ": expected weight to be of same shape as normalized_shape, but got weight of shape ", weight->sizes(),
              " and normalized_shape = ", normalized_shape);
  TORCH_CHECK(!defined(bias) || bias->sizes().equals(normalized_shape), op,
              ": expected bias to be of same shape as normalized_shape, but got bias of shape ", bias->sizes(),
              " and normalized_shape = ", normalized_shape);
  const bool fits = input.dim() >= k && input.sizes().slice(input.dim() - k).equals(normalized_shape);
  TORCH_CHECK(fits, op, ": given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
              c10::Join(", ", normalized_shape), "], but got input of size", input.sizes());
}

}  // namespace npu::ops
