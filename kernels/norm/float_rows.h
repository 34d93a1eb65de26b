// The per-row loops of the float layer norm, built twice: for AVX2 + FMA
// (chosen at run time when the CPU has them) and for the baseline ISA. The
// multiply-adds PyTorch's CPU kernels get fused by its AVX2/AVX-512 build
// are fused here too (std::fma in the AVX2 build; on the baseline, the
// product exact in double and one rounding of the sum), so outputs that
// cancel near zero round as CPU's.
#pragma once

#include <cstdint>

namespace npu::kernels {

struct RowMoments {
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean
};

// Two passes in double over n > 0 floats.
RowMoments float_row_moments(const float* x, int64_t n);

// y[i] = fma((x[i] - mean) * rstd, w[i], b[i]): CPU's float layer norm.
void centered_affine_row(float* y, const float* x, int64_t n, float mean, float rstd, const float* w,
                         const float* b);

// y[i] = fma(fma(x[i], rstd, shift), w[i], b[i]), shift = -rstd * mean:
// CPU's float16/bfloat16 layer norm (computed in float).
void scaled_affine_row(float* y, const float* x, int64_t n, float rstd, float shift, const float* w,
                       const float* b);

// acc[j] += g[j] * fma(rstd, x[j], shift) in double: a row's share of the
// weight's gradient, the normalized x as CPU's backward forms it.
void normalized_grad_row(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift);

// ds = sum of g * w * x, db = sum of g * w, in double: a row's sums in the
// layer norm backward.
void weighted_grad_sums(const float* g, const float* x, const float* w, int64_t n, double& ds, double& db);

// dx[i] = a * g[i] * w[i] + b * x[i] + c: the layer norm backward's input
// gradient of one row.
void input_grad_row(float* dx, const float* g, const float* x, const float* w, int64_t n, float a, float b, float c);

// The row loops of one ISA build; the functions above call best().
struct FloatRowLoops {
  RowMoments (*moments)(const float* x, int64_t n);
  void (*centered_affine)(float* y, const float* x, int64_t n, float mean, float rstd, const float* w,
                          const float* b);
  void (*scaled_affine)(float* y, const float* x, int64_t n, float rstd, float shift, const float* w,
                        const float* b);
  void (*normalized_grad)(double* acc, const float* g, const float* x, int64_t n, float rstd, float shift);
  void (*grad_sums)(const float* g, const float* x, const float* w, int64_t n, double& ds, double& db);
  void (*input_grad)(float* dx, const float* g, const float* x, const float* w, int64_t n, float a, float b,
                     float c);
};

// The baseline-ISA build (FMA emulated), and the one this CPU runs (AVX2 +
// FMA when it has them, else the baseline): tests compare the two.
const FloatRowLoops& baseline_float_rows();
const FloatRowLoops& best_float_rows();

}  // namespace npu::kernels
