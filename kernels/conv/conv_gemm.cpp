#include "kernels/conv/conv_gemm.h"

#include <Eigen/Core>

namespace npu::kernels::conv {

template <class Acc>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b,
          int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  using Mat = Eigen::Matrix<Acc, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using In = Eigen::Map<const Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
  if (m == 0 || n == 0) return;
  Out cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    if (!accumulate) cm.setZero();
    return;
  }
  const In am(a, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
  const In bm(b, trans_b ? n : k, trans_b ? k : n, Eigen::OuterStride<>(ldb));
  // Four spelled-out cases: Eigen picks its GEMM kernel from the static
  // expression type, so the transposes must not be runtime choices.
  auto run = [&](const auto& x, const auto& y) {
    if (accumulate) {
      cm.noalias() += x * y;
    } else {
      cm.noalias() = x * y;
    }
  };
  if (!trans_a && !trans_b) run(am, bm);
  if (!trans_a && trans_b) run(am, bm.transpose());
  if (trans_a && !trans_b) run(am.transpose(), bm);
  if (trans_a && trans_b) run(am.transpose(), bm.transpose());
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
                          int64_t, bool);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                           double*, int64_t, bool);
template void gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, const int64_t*, int64_t, const int64_t*, int64_t,
                            int64_t*, int64_t, bool);

}  // namespace npu::kernels::conv
