#include "kernels/activation/activation_grad.h"

#include <cmath>
#include <optional>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

template <class T>
void run(ActivationGrad fn, const TensorView& out, const TensorView& g, const TensorView& v) {
  using M = opmath_t<T>;
  switch (fn) {
    case ActivationGrad::Sigmoid:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M y = static_cast<M>(b);
        return static_cast<T>(static_cast<M>(a) * (M(1) - y) * y);
      });
      return;
    case ActivationGrad::Tanh:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M y = static_cast<M>(b);
        return static_cast<T>(static_cast<M>(a) * (M(1) - y * y));
      });
      return;
    case ActivationGrad::Gelu:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M cdf = M(0.5) * (M(1) + std::erf(x * M(M_SQRT1_2)));
        const M pdf = M(M_2_SQRTPI * M_SQRT1_2 * 0.5) * std::exp(x * x * M(-0.5));
        return static_cast<T>(static_cast<M>(a) * (cdf + x * pdf));
      });
      return;
    case ActivationGrad::GeluTanh:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M k = M(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
        const M c = M(0.044715);
        const M t = std::tanh(k * (x + c * x * x * x));
        const M d = M(0.5) * (M(1) + t) + M(0.5) * x * (M(1) - t * t) * k * (M(1) + M(3) * c * x * x);
        return static_cast<T>(static_cast<M>(a) * d);
      });
      return;
    case ActivationGrad::Silu:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M s = M(1) / (M(1) + std::exp(-x));
        return static_cast<T>(static_cast<M>(a) * s * (M(1) + x * (M(1) - s)));
      });
      return;
  }
}

}  // namespace

void activation_grad(ActivationGrad fn, const TensorView& out, const TensorView& grad_output,
                     const TensorView& operand) {
  if (!model::is_floating_point(out.dtype) || model::is_complex(out.dtype)) {
    throw KernelError(std::string("activation backward: expected a real floating point output, got ") +
                      model::dtype_name(out.dtype));
  }
  std::optional<ScratchTensor> hg, hv;
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), out.sizes);
  const TensorView v = broadcast_to(input_as(operand, out.dtype, hv), out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) run<T>(fn, out, g, v);
  });
}

}  // namespace npu::kernels
