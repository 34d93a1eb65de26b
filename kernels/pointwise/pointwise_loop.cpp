#include "kernels/pointwise/pointwise_loop.h"

namespace npu::kernels {

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

template <std::size_t N>
void run_pointwise(const std::array<const TensorView*, N>& views, RunFn<N> run, const void* ctx) {
  const StridedOperands<N> ops = make_operands<N>(views);
  strided_loop<N>(ops, [&](const std::array<char*, N>& p, const std::array<int64_t, N>& s, int64_t n) {
    run(ctx, p, s, n);
  });
}

template void run_pointwise<1>(const std::array<const TensorView*, 1>&, RunFn<1>, const void*);
template void run_pointwise<2>(const std::array<const TensorView*, 2>&, RunFn<2>, const void*);
template void run_pointwise<3>(const std::array<const TensorView*, 3>&, RunFn<3>, const void*);
template void run_pointwise<4>(const std::array<const TensorView*, 4>&, RunFn<4>, const void*);

}  // namespace npu::kernels
