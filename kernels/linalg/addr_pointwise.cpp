#include "kernels/linalg/addr_pointwise.h"

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"

namespace npu::kernels::linalg {
namespace {

// vec (one dim) seen as an m x n matrix: a column (varying along dim 0) or a row.
TensorView spread(const TensorView& vec, const Shape& shape, bool column) {
  TensorView v = vec;
  v.sizes = shape;
  v.strides = column ? Shape{vec.strides[0], 0} : Shape{0, vec.strides[0]};
  return v;
}

template <class T>
void run(const TensorView& out, const TensorView& self, const TensorView& col, const TensorView& row,
         std::complex<double> beta, std::complex<double> alpha) {
  const T b(static_cast<float>(beta.real()));
  const T a(static_cast<float>(alpha.real()));
  // Each T(...) is one rounding of CPU's scalar_t arithmetic.
  if (static_cast<float>(b) == 0.0f) {
    binary_kernel<T, T, T>(out, col, row, [a](T x, T y) { return T(float(T(float(a) * float(x))) * float(y)); });
    return;
  }
  ternary_kernel<T, T, T, T>(out, broadcast_to(self, out.sizes), col, row, [a, b](T s, T x, T y) {
    const T product(float(T(float(a) * float(x))) * float(y));
    return T(float(T(float(b) * float(s))) + float(product));
  });
}

void run_bool(const TensorView& out, const TensorView& self, const TensorView& col, const TensorView& row,
              std::complex<double> beta, std::complex<double> alpha) {
  const bool b = beta != std::complex<double>(0.0, 0.0);
  const bool a = alpha != std::complex<double>(0.0, 0.0);
  if (!b) {
    binary_kernel<bool, bool, bool>(out, col, row, [a](bool x, bool y) { return a && x && y; });
    return;
  }
  ternary_kernel<bool, bool, bool, bool>(out, broadcast_to(self, out.sizes), col, row,
                                         [a](bool s, bool x, bool y) { return s || (a && x && y); });
}

}  // namespace

bool addr_is_pointwise(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Bool;
}

void addr_pointwise(const TensorView& out, const TensorView& self, const TensorView& vec1, const TensorView& vec2,
                   std::complex<double> beta, std::complex<double> alpha) {
  for (const TensorView* t : {&self, &vec1, &vec2}) {
    if (t->dtype != out.dtype) throw KernelError("addr: operands of different dtypes");
  }
  const TensorView col = spread(vec1, out.sizes, true), row = spread(vec2, out.sizes, false);
  switch (out.dtype) {
    case DType::Float16: return run<half>(out, self, col, row, beta, alpha);
    case DType::BFloat16: return run<bfloat16>(out, self, col, row, beta, alpha);
    case DType::Bool: return run_bool(out, self, col, row, beta, alpha);
    default: throw KernelError(std::string("addr_pointwise: dtype ") + model::dtype_name(out.dtype) +
                               " (float16, bfloat16 or bool; the GEMM engine computes the others)");
  }
}

}  // namespace npu::kernels::linalg
