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

// Calls f(tag, th) for the real element type T of `d` (tag's type), th being
// the threshold rounded to T first and held in opmath_t<T>: CPU's kernels
// compare in the element type. Complex and bool are rejected by require_real.
template <class F>
void visit_real_threshold(DType d, const Scalar& threshold, F&& f) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
      f(tag, static_cast<opmath_t<T>>(threshold.to<T>()));
    }
  });
}

}  // namespace

void threshold(const TensorView& out, const TensorView& self, const Scalar& threshold, const Scalar& value) {
  require_real("threshold", out.dtype);
  std::optional<ScratchTensor> hs;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  visit_real_threshold(out.dtype, threshold, [&](auto tag, auto th) {
    using T = typename decltype(tag)::type;
    using M = decltype(th);
    const T v = value.to<T>();
    unary_kernel<T, T>(out, x, [th, v](T xv) { return static_cast<M>(xv) <= th ? v : xv; });
  });
}

void threshold_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                        const Scalar& threshold) {
  require_real("threshold_backward", out.dtype);
  std::optional<ScratchTensor> hg, hs;
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), out.sizes);
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  visit_real_threshold(out.dtype, threshold, [&](auto tag, auto th) {
    using T = typename decltype(tag)::type;
    using M = decltype(th);
    binary_kernel<T, T, T>(out, x, g, [th](T xv, T gv) { return static_cast<M>(xv) <= th ? T(0) : gv; });
  });
}

}  // namespace npu::kernels
