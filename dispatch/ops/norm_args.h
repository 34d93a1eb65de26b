// Argument rules the normalization dispatch functions share
// (dispatch/ops/layer_norm.cpp, group_norm.cpp, rms_norm.cpp): CPU's
// mixed-dtype rule and the shape of saved per-row statistics.
#pragma once

#include <optional>
#include <vector>

#include <ATen/ATen.h>

namespace npu::ops {

inline bool defined(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

inline std::optional<at::Tensor> optional_of(const at::Tensor& t) {
  return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt;
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
