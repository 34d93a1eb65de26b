#include "kernels/conv/conv_gemm.h"

#include <type_traits>

#include "kernels/linalg/gemm.h"

namespace npu::kernels::conv {

namespace {

template <class Acc>
constexpr model::DType dtype_of() {
  if constexpr (std::is_same_v<Acc, float>) return model::DType::Float32;
  if constexpr (std::is_same_v<Acc, double>) return model::DType::Float64;
  if constexpr (std::is_same_v<Acc, int64_t>) return model::DType::Int64;
}

// A row-major matrix with row stride `ld`, read transposed or not.
linalg::GemmMatrix operand(const void* data, int64_t ld, bool transposed) {
  return {const_cast<void*>(data), transposed ? 1 : ld, transposed ? ld : 1, 0};
}

}  // namespace

// The linalg GEMM engine on row-major buffers: transposes are swapped strides.
template <class Acc>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b,
          int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  linalg::GemmArgs args;
  args.dtype = dtype_of<Acc>();
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = operand(a, lda, trans_a);
  args.b = operand(b, ldb, trans_b);
  args.c = operand(c, ldc, false);
  args.beta = accumulate ? 1.0 : 0.0;
  linalg::gemm(args);
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
                          int64_t, bool);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                           double*, int64_t, bool);
template void gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, const int64_t*, int64_t, const int64_t*, int64_t,
                            int64_t*, int64_t, bool);

}  // namespace npu::kernels::conv
