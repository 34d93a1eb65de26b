#include "kernels/norm/float_rows.h"

#include <cmath>

namespace npu::kernels {

namespace {

// The loop bodies are forced inline so that each is compiled for the ISA of
// the entry point it is expanded in.
#define NPU_ROW_INLINE inline __attribute__((always_inline))

// a * b + c rounded once without an FMA unit: the product of two floats is
// exact in double, so one rounding of the double sum to float is the fused
// result (up to a double-rounding tie, about one in 2^29).
struct EmulatedFma {
  float operator()(float a, float b, float c) const {
    return static_cast<float>(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c));
  }
};

struct HardwareFma {
  float operator()(float a, float b, float c) const { return std::fma(a, b, c); }
};

// Eight independent partial sums: one running double sum is bound by the
// latency of its adds; lanes pipeline and vectorize.
template <class Term>
NPU_ROW_INLINE double lane_sum(int64_t n, Term term) {
  constexpr int64_t kLanes = 8;
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) acc[l] += term(i + l);
  }
  double total = 0;
  for (; i < n; ++i) total += term(i);
  for (int64_t l = 0; l < kLanes; ++l) total += acc[l];
  return total;
}

template <class Fma>
NPU_ROW_INLINE RowMoments moments(const float* x, int64_t n) {
  RowMoments m;
  m.mean = lane_sum(n, [x](int64_t i) { return static_cast<double>(x[i]); }) / static_cast<double>(n);
  const double mu = m.mean;
  m.m2 = lane_sum(n, [x, mu](int64_t i) {
    const double d = static_cast<double>(x[i]) - mu;
    return d * d;
  });
  return m;
}

template <class Fma>
NPU_ROW_INLINE void centered(float* y, const float* x, int64_t n, float mean, float rstd, const float* w, const float* b) {
  const Fma fma;
  for (int64_t i = 0; i < n; ++i) y[i] = fma((x[i] - mean) * rstd, w[i], b[i]);
}

template <class Fma>
NPU_ROW_INLINE void scaled(float* y, const float* x, int64_t n, float rstd, float shift, const float* w, const float* b) {
  const Fma fma;
  for (int64_t i = 0; i < n; ++i) y[i] = fma(fma(x[i], rstd, shift), w[i], b[i]);
}

template <class Fma>
NPU_ROW_INLINE void grad(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift) {
  const Fma fma;
  for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<double>(g[j]) * static_cast<double>(fma(rstd, x[j], shift));
}

NPU_ROW_INLINE void sums(const float* g, const float* x, const float* w, int64_t n, double& ds, double& db) {
  ds = lane_sum(n, [=](int64_t i) {
    return static_cast<double>(g[i]) * static_cast<double>(w[i]) * static_cast<double>(x[i]);
  });
  db = lane_sum(n, [=](int64_t i) { return static_cast<double>(g[i]) * static_cast<double>(w[i]); });
}

NPU_ROW_INLINE void input_grad(float* dx, const float* g, const float* x, const float* w, int64_t n, float a, float b,
                               float c) {
  for (int64_t i = 0; i < n; ++i) dx[i] = a * g[i] * w[i] + b * x[i] + c;
}

template <class Fma>
struct Loops {
  static RowMoments moments_of(const float* x, int64_t n) { return moments<Fma>(x, n); }
  static void centered_of(float* y, const float* x, int64_t n, float mean, float rstd, const float* w,
                          const float* b) {
    centered<Fma>(y, x, n, mean, rstd, w, b);
  }
  static void scaled_of(float* y, const float* x, int64_t n, float rstd, float shift, const float* w,
                        const float* b) {
    scaled<Fma>(y, x, n, rstd, shift, w, b);
  }
  static void grad_of(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift) {
    grad<Fma>(acc, g, x, n, rstd, shift);
  }
  static void sums_of(const float* g, const float* x, const float* w, int64_t n, double& ds, double& db) {
    sums(g, x, w, n, ds, db);
  }
  static void input_grad_of(float* dx, const float* g, const float* x, const float* w, int64_t n, float a, float b,
                            float c) {
    input_grad(dx, g, x, w, n, a, b, c);
  }
};

#if defined(__x86_64__) && defined(__GNUC__)
#define NPU_FLOAT_ROWS_AVX2 __attribute__((target("avx2,fma")))

NPU_FLOAT_ROWS_AVX2 RowMoments moments_avx2(const float* x, int64_t n) { return moments<HardwareFma>(x, n); }
NPU_FLOAT_ROWS_AVX2 void centered_avx2(float* y, const float* x, int64_t n, float mean, float rstd, const float* w,
                                       const float* b) {
  centered<HardwareFma>(y, x, n, mean, rstd, w, b);
}
NPU_FLOAT_ROWS_AVX2 void scaled_avx2(float* y, const float* x, int64_t n, float rstd, float shift, const float* w,
                                     const float* b) {
  scaled<HardwareFma>(y, x, n, rstd, shift, w, b);
}
NPU_FLOAT_ROWS_AVX2 void grad_avx2(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift) {
  grad<HardwareFma>(acc, g, x, n, rstd, shift);
}
NPU_FLOAT_ROWS_AVX2 void sums_avx2(const float* g, const float* x, const float* w, int64_t n, double& ds,
                                   double& db) {
  sums(g, x, w, n, ds, db);
}
NPU_FLOAT_ROWS_AVX2 void input_grad_avx2(float* dx, const float* g, const float* x, const float* w, int64_t n, float a,
                                         float b, float c) {
  input_grad(dx, g, x, w, n, a, b, c);
}

bool has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

}  // namespace

const FloatRowLoops& baseline_float_rows() {
  using L = Loops<EmulatedFma>;
  static const FloatRowLoops loops{L::moments_of, L::centered_of, L::scaled_of, L::grad_of, L::sums_of,
                                   L::input_grad_of};
  return loops;
}

const FloatRowLoops& best_float_rows() {
#ifdef NPU_FLOAT_ROWS_AVX2
  static const FloatRowLoops avx2{moments_avx2, centered_avx2, scaled_avx2, grad_avx2, sums_avx2, input_grad_avx2};
  static const bool use_avx2 = has_avx2_fma();
  if (use_avx2) return avx2;
#endif
  return baseline_float_rows();
}

RowMoments float_row_moments(const float* x, int64_t n) { return best_float_rows().moments(x, n); }

void centered_affine_row(float* y, const float* x, int64_t n, float mean, float rstd, const float* w,
                         const float* b) {
  best_float_rows().centered_affine(y, x, n, mean, rstd, w, b);
}

void scaled_affine_row(float* y, const float* x, int64_t n, float rstd, float shift, const float* w,
                       const float* b) {
  best_float_rows().scaled_affine(y, x, n, rstd, shift, w, b);
}

void normalized_grad_row(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift) {
  best_float_rows().normalized_grad(acc, g, x, n, rstd, shift);
}

void weighted_grad_sums(const float* g, const float* x, const float* w, int64_t n, double& ds, double& db) {
  best_float_rows().grad_sums(g, x, w, n, ds, db);
}

void input_grad_row(float* dx, const float* g, const float* x, const float* w, int64_t n, float a, float b, float c) {
  best_float_rows().input_grad(dx, g, x, w, n, a, b, c);
}

}  // namespace npu::kernels
