#include "kernels/select/isclose.h"

#include <cmath>

#include "kernels/core/elementwise.h"

namespace npu::kernels {

void check_isclose(const TensorView& out, const TensorView& self, const TensorView& other) {
  if (self.dtype != other.dtype) {
    throw KernelError(std::string("isclose: other must have self's dtype ") + model::dtype_name(self.dtype) +
                      ", got " + model::dtype_name(other.dtype));
  }
  if (model::is_complex(self.dtype)) {
    throw KernelError(std::string("isclose: complex self is not supported (got ") + model::dtype_name(self.dtype) + ")");
  }
  if (out.dtype != DType::Bool) {
    throw KernelError(std::string("isclose: out must be bool, got ") + model::dtype_name(out.dtype));
  }
  if (broadcast_shapes(self.sizes, other.sizes) != out.sizes) {
    throw KernelError("isclose: out must have the broadcast shape of self " + shape_str(self.sizes) + " and other " +
                      shape_str(other.sizes) + ", got " + shape_str(out.sizes));
  }
}

namespace {

// One element in a floating dtype T: every step rounds to T (opmath for the
// arithmetic itself), as a chain of PyTorch CPU ops on T tensors does.
template <class T>
bool close_floating(T a, T b, const IsCloseArgs& args) {
  using M = opmath_t<T>;
  const M x = static_cast<M>(a), y = static_cast<M>(b);
  if (x == y) return true;
  if (args.equal_nan && std::isnan(x) && std::isnan(y)) return true;
  if (args.rtol == 0 && args.atol == 0) return false;
  const M allowed = static_cast<M>(T(static_cast<M>(args.atol) + std::abs(static_cast<M>(T(static_cast<M>(args.rtol) * y)))));
  const M actual = std::abs(static_cast<M>(T(x - y)));
  return std::isfinite(actual) && actual <= allowed;
}

// Integers and bool: converted to float32 first, so the difference cannot
// wrap (PyTorch moves the cast before the subtraction for that reason);
// values float32 cannot hold exactly round as they do there.
template <class T>
bool close_integral(T a, T b, const IsCloseArgs& args) {
  if (a == b) return true;
  if (args.rtol == 0 && args.atol == 0) return false;
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  const float allowed = static_cast<float>(args.atol) + std::abs(y * static_cast<float>(args.rtol));
  const float actual = std::abs(x - y);
  return std::isfinite(actual) && actual <= allowed;
}

}  // namespace

void isclose(const TensorView& out, const TensorView& self, const TensorView& other, const IsCloseArgs& args) {
  check_isclose(out, self, other);
  const TensorView a = broadcast_to(self, out.sizes), b = broadcast_to(other, out.sizes);
  visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw KernelError("isclose: complex self is not supported");
    } else if constexpr (is_floating_v<T>) {
      binary_kernel<bool, T, T>(out, a, b, [&args](T x, T y) { return close_floating(x, y, args); });
    } else {
      binary_kernel<bool, T, T>(out, a, b, [&args](T x, T y) { return close_integral(x, y, args); });
    }
  });
}

}  // namespace npu::kernels
