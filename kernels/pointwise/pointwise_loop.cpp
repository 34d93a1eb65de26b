#include "kernels/pointwise/pointwise_loop.h"

namespace npu::kernels {

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

namespace {

// All views contiguous (they have the same sizes): one run over the data,
// what strided_loop would find after merging every dim, without building its
// operands. Only below the parallel grain, where strided_loop runs serially.
template <std::size_t N>
bool run_contiguous(const std::array<const TensorView*, N>& views, RunFn<N> run, const void* ctx) {
  const int64_t n = views[0]->numel();
  if (n == 0 || n >= kParallelGrain) return false;
  std::array<char*, N> ptrs{};
  std::array<int64_t, N> strides{};
  for (std::size_t i = 0; i < N; ++i) {
    if (!views[i]->is_contiguous()) return false;
    ptrs[i] = static_cast<char*>(views[i]->data);
    strides[i] = static_cast<int64_t>(views[i]->itemsize());
  }
  run(ctx, ptrs, strides, n);
  return true;
}

}  // namespace

template <std::size_t N>
void run_pointwise(const std::array<const TensorView*, N>& views, RunFn<N> run, const void* ctx) {
  if (run_contiguous<N>(views, run, ctx)) return;
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
