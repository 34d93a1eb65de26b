// The element types the convolution kernels run on and their compute types,
// shared by the im2col passes (conv.cpp) and the shifted-GEMM passes
// (conv_shifted.cpp).
#pragma once

#include <string>
#include <type_traits>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels::conv {

// The compute type of T: reduced floats in float, floats as themselves,
// integers in int64.
template <class T>
using acc_t = std::conditional_t<is_floating_v<T>, opmath_t<T>, int64_t>;

template <class F>
void visit_conv_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    default:
      throw KernelError(std::string("convolution does not support dtype ") + model::dtype_name(dtype) +
                        " (supported: float32, float64, float16, bfloat16, int64)");
  }
}

}  // namespace npu::kernels::conv
