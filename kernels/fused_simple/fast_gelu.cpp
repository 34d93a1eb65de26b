#include "kernels/fused_simple/fast_gelu.h"

#include <cmath>
#include <optional>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

constexpr double kSlope = 1.702;

// Calls f(tag) for `d` when it is a real floating dtype.
template <class F>
void visit_real_floating(const char* op, DType d, F&& f) {
  if (!model::is_floating_point(d) || model::is_complex(d)) {
    throw KernelError(std::string(op) + ": expected a real floating point output, got " + model::dtype_name(d));
  }
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) f(tag);
  });
}

// sigmoid(k x) without overflow for large |x|: exp only of a non-positive value.
template <class M>
M sigmoid_of_scaled(M x) {
  const M z = static_cast<M>(kSlope) * x;
  if (z >= M(0)) return M(1) / (M(1) + std::exp(-z));
  const M e = std::exp(z);
  return e / (M(1) + e);
}

}  // namespace

void fast_gelu(const TensorView& out, const TensorView& self) {
  if (self.sizes != out.sizes) throw KernelError("fast_gelu: self and out must have one shape");
  std::optional<ScratchTensor> hs;
  const TensorView x = input_as(self, out.dtype, hs);
  visit_real_floating("fast_gelu", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    // float16/bfloat16 compute in float and round once, as CANN's kernel does.
    unary_kernel<T, T>(out, x, [](T v) {
      const M m = static_cast<M>(v);
      return static_cast<T>(m * sigmoid_of_scaled(m));
    });
  });
}

void fast_gelu_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self) {
  if (self.sizes != grad_input.sizes || grad_output.sizes != grad_input.sizes) {
    throw KernelError("fast_gelu_backward: gradOutput, self and gradInput must have one shape");
  }
  std::optional<ScratchTensor> hg, hs;
  const TensorView dy = input_as(grad_output, grad_input.dtype, hg);
  const TensorView x = input_as(self, grad_input.dtype, hs);
  visit_real_floating("fast_gelu_backward", grad_input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    binary_kernel<T, T, T>(grad_input, dy, x, [](T g, T v) {
      const M m = static_cast<M>(v);
      const M s = sigmoid_of_scaled(m);
      return static_cast<T>(static_cast<M>(g) * s * (M(1) + static_cast<M>(kSlope) * m * (M(1) - s)));
    });
  });
}

}  // namespace npu::kernels
