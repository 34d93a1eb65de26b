// var and std of dispatch/ops/reductions.cpp (PyTorch gives them no meta
// function), one body for both (take_sqrt: std) and each form.
// ops/table/reduce.yaml's generated wrappers call them with the schema's name
// (the capability check and the fallback name it).
#pragma once

#include <optional>
#include <tuple>

#include <ATen/core/Tensor.h>

namespace npu::ops {

at::Tensor var_or_std(bool take_sqrt, const char* schema, const at::Tensor& self, at::OptionalIntArrayRef dim,
                      const std::optional<at::Scalar>& correction, bool keepdim);
at::Tensor& var_or_std_out(bool take_sqrt, const char* schema, const at::Tensor& self, at::OptionalIntArrayRef dim,
                           const std::optional<at::Scalar>& correction, bool keepdim, at::Tensor& out);
std::tuple<at::Tensor, at::Tensor> var_or_std_mean(bool take_sqrt, const char* schema, const at::Tensor& self,
                                                   at::OptionalIntArrayRef dim,
                                                   const std::optional<at::Scalar>& correction, bool keepdim);

}  // namespace npu::ops
