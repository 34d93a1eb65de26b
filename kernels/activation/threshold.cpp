#include "kernels/activation/threshold.h"

#include <optional>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

void require_real(const char* op, DType d) {
  if (model::is_complex(d) || d == DType::Bool) {
    throw KernelError(std::string(op) + ": not implemented for " + model::dtype_name(d));
  }
}

}  // namespace

void threshold(const TensorView& out, const TensorView& self, const Scalar& threshold, const Scalar& value) {
  require_real("threshold", out.dtype);
  std::optional<ScratchTensor> hs;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
      using M = opmath_t<T>;
      const M th = static_cast<M>(threshold.to<T>());
      const T v = value.to<T>();
      unary_kernel<T, T>(out, x, [th, v](T xv) { return static_cast<M>(xv) <= th ? v : xv; });
    }
  });
}

void threshold_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                        const Scalar& threshold) {
  require_real("threshold_backward", out.dtype);
  std::optional<ScratchTensor> hg, hs;
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), out.sizes);
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
      // Compared in the element type, as CPU's kernel: the threshold rounds
      // to T first.
      using M = opmath_t<T>;
      const M th = static_cast<M>(threshold.to<T>());
      binary_kernel<T, T, T>(out, x, g, [th](T xv, T gv) { return static_cast<M>(xv) <= th ? T(0) : gv; });
    }
  });
}

}  // namespace npu::kernels
