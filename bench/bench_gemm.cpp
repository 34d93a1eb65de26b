// The machine's single-precision GEMM peak as Eigen reaches it, beside the
// emulator's GEMM engine (kernels/linalg/gemm.h), in GFLOP/s (2 m n k flops
// per product):
//  - eigen-1core: one Eigen sgemm on one thread;
//  - eigen-allcores: one independent Eigen sgemm per worker thread at once
//    (oneTBB), the aggregate rate: the peak any split of one GEMM can reach;
//  - engine float32/float16/bfloat16: one gemm() call of the engine on all
//    workers.
// Best of --reps timed runs after a warm-up (the least disturbed by other load).
//
//   bench_gemm [--size N] [--reps N] [--json]
//
// Compiled with the Cube kernels' ISA flags (CMakeLists.txt) so Eigen here
// uses the same SIMD as the engine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm.h"

namespace {

using Clock = std::chrono::steady_clock;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class F>
double best_seconds(int reps, F&& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

template <class T>
double engine_gflops(int64_t n, int reps, npu::model::DType dtype) {
  std::vector<T> a(n * n), b(n * n), c(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = T(static_cast<float>(i % 7) * 0.25f);
    b[i] = T(static_cast<float>(i % 5) * 0.5f);
  }
  npu::kernels::linalg::GemmArgs g;
  g.dtype = dtype;
  g.m = g.n = g.k = n;
  g.a = {a.data(), n, 1, 0};
  g.b = {b.data(), n, 1, 0};
  g.c = {c.data(), n, 1, 0};
  const double s = best_seconds(reps, [&] { npu::kernels::linalg::gemm(g); });
  return 2.0 * n * n * n / s * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 1024;
  int reps = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--size" && i + 1 < argc) {
      n = std::atoll(argv[++i]);
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--json") {
      json = true;
    } else {
      std::fprintf(stderr, "usage: bench_gemm [--size N] [--reps N] [--json]\n");
      return 2;
    }
  }
  const int workers = tbb::this_task_arena::max_concurrency();
  std::vector<MatrixF> as, bs, cs;
  for (int w = 0; w < workers; ++w) {
    as.push_back(MatrixF::Random(n, n));
    bs.push_back(MatrixF::Random(n, n));
    cs.push_back(MatrixF::Zero(n, n));
  }
  const double flops = 2.0 * n * n * n;
  const double one = flops / best_seconds(reps, [&] { cs[0].noalias() = as[0] * bs[0]; }) * 1e-9;
  const double all = workers * flops /
                     best_seconds(reps, [&] {
                       tbb::parallel_for(0, workers, [&](int w) { cs[w].noalias() = as[w] * bs[w]; });
                     }) * 1e-9;
  using npu::model::DType;
  const double f32 = engine_gflops<float>(n, reps, DType::Float32);
  const double f16 = engine_gflops<npu::kernels::half>(n, reps, DType::Float16);
  const double b16 = engine_gflops<npu::kernels::bfloat16>(n, reps, DType::BFloat16);
  if (json) {
    std::printf(
        "{\"size\": %lld, \"workers\": %d, \"eigen_1core\": %.2f, \"eigen_allcores\": %.2f, \"engine_float32\": %.2f, "
        "\"engine_float16\": %.2f, \"engine_bfloat16\": %.2f}\n",
        static_cast<long long>(n), workers, one, all, f32, f16, b16);
  } else {
    std::printf("GEMM %lldx%lldx%lld, %d workers, GFLOP/s (best of %d)\n", static_cast<long long>(n),
                static_cast<long long>(n), static_cast<long long>(n), workers, reps);
    std::printf("  eigen sgemm, 1 core        %8.2f\n", one);
    std::printf("  eigen sgemm, all cores     %8.2f   (peak reference)\n", all);
    std::printf("  engine float32             %8.2f   (%.2fx of peak)\n", f32, f32 / all);
    std::printf("  engine float16             %8.2f\n", f16);
    std::printf("  engine bfloat16            %8.2f\n", b16);
  }
  return 0;
}
