// The shared shape of PyTorch binary ops on npu: type promotion, broadcasting,
// out= resizing and casting, overlap checks, CPU scalars as scalar operands.
// Each op supplies only its two aclnn launches (tensor-tensor, tensor-scalar).
#pragma once

#include <functional>

#include <ATen/ATen.h>

namespace npu::ops {

struct BinaryLaunch {
  // out = self (op) other, out already of the result dtype and shape.
  std::function<void(const at::Tensor& self, const at::Tensor& other, const at::Tensor& out)> tensor;
  // out = self (op) scalar.
  std::function<void(const at::Tensor& self, const at::Scalar& other, const at::Tensor& out)> scalar;
  bool commutative = false;  // a CPU-scalar `self` may swap with `other`
};

// Computes `launch` for out= semantics; returns out.
at::Tensor& binary_out(const char* name, const at::Tensor& self, const at::Tensor& other, at::Tensor& out,
                       const BinaryLaunch& launch);
// Functional form: allocates the result.
at::Tensor binary(const char* name, const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch);
// In-place form: self is the output; the result must fit self's shape and dtype.
at::Tensor& binary_(const char* name, at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch);

}  // namespace npu::ops
