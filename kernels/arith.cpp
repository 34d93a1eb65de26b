#include "kernels/arith.h"

#include "kernels/elementwise.h"

namespace npu::kernels {

namespace {

void require_same_dtype(const char* op, const TensorView& out, const TensorView& a, const TensorView& b) {
  if (a.dtype != out.dtype || b.dtype != out.dtype) {
    throw KernelError(std::string(op) + ": operands must share the output dtype " + model::dtype_name(out.dtype) +
                      ", got " + model::dtype_name(a.dtype) + " and " + model::dtype_name(b.dtype));
  }
}

}  // namespace

void add(const TensorView& out, const TensorView& a, const TensorView& b, const Scalar& alpha) {
  require_same_dtype("add", out, a, b);
  const TensorView x = broadcast_to(a, out.sizes);
  const TensorView y = broadcast_to(b, out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      // bool + bool is logical or in PyTorch (alpha must be true).
      binary_kernel<T, T, T>(out, x, y, [](bool p, bool q) { return p || q; });
    } else {
      const M al = alpha.to<M>();
      if (al == M(1)) {
        binary_kernel<T, T, T>(out, x, y, [](const T& p, const T& q) { return T(M(p) + M(q)); });
      } else {
        binary_kernel<T, T, T>(out, x, y, [al](const T& p, const T& q) { return T(M(p) + al * M(q)); });
      }
    }
  });
}

void mul(const TensorView& out, const TensorView& a, const TensorView& b) {
  require_same_dtype("mul", out, a, b);
  const TensorView x = broadcast_to(a, out.sizes);
  const TensorView y = broadcast_to(b, out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      binary_kernel<T, T, T>(out, x, y, [](bool p, bool q) { return p && q; });
    } else {
      binary_kernel<T, T, T>(out, x, y, [](const T& p, const T& q) { return T(M(p) * M(q)); });
    }
  });
}

}  // namespace npu::kernels
