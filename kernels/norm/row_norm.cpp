#include "kernels/norm/row_norm.h"

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/nd_iter.h"
#include "kernels/norm/float_rows.h"
#include "kernels/norm/norm_operands.h"

namespace npu::kernels {

namespace {

// The input as M rows of N elements around its last `normalized_dims` dims.
struct RowShape {
  int64_t m = 1;
  int64_t n = 1;
};

RowShape row_shape(const std::string& op, const TensorView& input, int64_t normalized_dims) {
  if (normalized_dims < 1 || normalized_dims > input.dim()) {
    throw KernelError(op + ": normalized dims must be in [1, " + std::to_string(input.dim()) + "] for an input of shape " +
                      shape_str(input.sizes) + ", got " + std::to_string(normalized_dims));
  }
  RowShape r;
  const int64_t axis = input.dim() - normalized_dims;
  for (int64_t d = 0; d < axis; ++d) r.m *= input.sizes[d];
  for (int64_t d = axis; d < input.dim(); ++d) r.n *= input.sizes[d];
  return r;
}

// Runs row(r) for every row r, rows split over the workers.
template <class Row>
void for_rows(const RowShape& s, Row&& row) {
  parallel_range(s.m, grain_for(s.n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(r);
  });
}

// `reduced`: the input is float16/bfloat16 (computed in float).
template <class T>
void layer_norm_rows(T* y, const T* x, const RowShape& s, const std::vector<T>& w, const std::vector<T>& b, double eps,
                     bool reduced, std::vector<T>& mean, std::vector<T>& rstd) {
  const int64_t n = s.n;
  const T* wp = w.data();
  const T* bp = b.data();
  for_rows(s, [&](int64_t r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    T var;
    if constexpr (std::is_same_v<T, float>) {
      if (n > 0) {
        const RowMoments m = float_row_moments(xr, n);
        mean[r] = static_cast<float>(m.mean);
        var = static_cast<float>(m.m2 / static_cast<double>(n));
      } else {
        two_pass_moments(xr, n, mean[r], var);
      }
    } else {
      two_pass_moments(xr, n, mean[r], var);
    }
    // 1 / sqrt(var + eps) in T, eps rounded to T, as CPU's kernel.
    rstd[r] = T(1) / std::sqrt(var + static_cast<T>(eps));
    const T mu = mean[r];
    const T rs = rstd[r];
    // CPU's forms, so outputs that cancel near zero round alike: float and
    // double compute (x - mean) * rstd * w + b; float16/bfloat16 (in
    // float) (x * rstd - rstd * mean) * w + b; the multiply-adds fused in
    // float as CPU's AVX2/AVX-512 build fuses them (float_rows.h).
    if constexpr (std::is_same_v<T, float>) {
      if (reduced) {
        scaled_affine_row(yr, xr, n, rs, -rs * mu, wp, bp);
      } else {
        centered_affine_row(yr, xr, n, mu, rs, wp, bp);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mu) * rs * wp[i] + bp[i];
    }
  });
}

// Sums over rows of g * (x - mean) * rstd and of g, per column: column blocks
// spread over workers, rows walked in order inside a block.
template <class T>
void affine_grads(const T* g, const T* x, const RowShape& s, const std::vector<T>* mean, const std::vector<T>& rstd,
                  std::vector<double>* dw, std::vector<double>* db) {
  const int64_t n = s.n;
  parallel_range(n, grain_for(s.m), [&](int64_t j0, int64_t j1) {
    for (int64_t r = 0; r < s.m; ++r) {
      const T* gr = g + r * n;
      const T* xr = x + r * n;
      const T a = rstd[r];
      // The normalized x as CPU forms it: a * x - a * mean, fused.
      const T shift = mean != nullptr ? -a * (*mean)[r] : T(0);
      if (dw != nullptr) {
        double* d = dw->data();
        if constexpr (std::is_same_v<T, float>) {
          normalized_grad_row(d + j0, gr + j0, xr + j0, j1 - j0, a, shift);
        } else {
          for (int64_t j = j0; j < j1; ++j) d[j] += gr[j] * (a * xr[j] + shift);
        }
      }
      if (db != nullptr) {
        double* d = db->data();
        for (int64_t j = j0; j < j1; ++j) d[j] += static_cast<double>(gr[j]);
      }
    }
  });
}

template <class T>
void layer_norm_backward_rows(T* dx, const T* g, const T* x, const RowShape& s, const std::vector<T>& w,
                              const std::vector<T>& mean, const std::vector<T>& rstd) {
  const int64_t n = s.n;
  const T* wp = w.data();
  for_rows(s, [&](int64_t r) {
    const T* gr = g + r * n;
    const T* xr = x + r * n;
    // ds: the sum of g * w * x; db: of g * w.
    double ds = 0;
    double db = 0;
    if constexpr (std::is_same_v<T, float>) {
      weighted_grad_sums(gr, xr, wp, n, ds, db);
    } else {
      const auto sums =
          lane_sums<2>(n, [&](int64_t i) { return std::array<double, 2>{gr[i] * wp[i] * xr[i], gr[i] * wp[i]}; });
      ds = sums[0];
      db = sums[1];
    }
    const double a = static_cast<double>(rstd[r]);
    const CenteredGrad k = centered_grad(ds, db, a, static_cast<double>(mean[r]), n);
    const T at = static_cast<T>(a);
    const T bt = static_cast<T>(k.scale);
    const T ct = static_cast<T>(k.shift);
    T* out = dx + r * n;
    if constexpr (std::is_same_v<T, float>) {
      input_grad_row(out, gr, xr, wp, n, at, bt, ct);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = at * gr[i] * wp[i] + bt * xr[i] + ct;
    }
  });
}

template <class T>
void rms_norm_rows(T* y, const T* x, const RowShape& s, const std::vector<T>& w, double eps, std::vector<T>& rstd) {
  const int64_t n = s.n;
  const T* wp = w.data();
  for_rows(s, [&](int64_t r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    const double sq = lane_sums<1>(n, [&](int64_t i) {
      return std::array<double, 1>{static_cast<double>(xr[i]) * static_cast<double>(xr[i])};
    })[0];
    // mean(x^2) + eps rounded to T, then 1 / sqrt in T: the steps of
    // PyTorch's composite (mean, add_, rsqrt), each in the compute type.
    const T ms = static_cast<T>(sq / static_cast<double>(n)) + static_cast<T>(eps);
    const T rs = T(1) / std::sqrt(ms);
    rstd[r] = rs;
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] * rs) * wp[i];
  });
}

template <class T>
void rms_norm_backward_rows(T* dx, const T* g, const T* x, const RowShape& s, const std::vector<T>& w,
                            const std::vector<T>& rstd) {
  const int64_t n = s.n;
  const T* wp = w.data();
  for_rows(s, [&](int64_t r) {
    const T* gr = g + r * n;
    const T* xr = x + r * n;
    const double dot = lane_sums<1>(n, [&](int64_t i) {  // the sum of g * w * x
      return std::array<double, 1>{static_cast<double>(gr[i]) * static_cast<double>(wp[i]) *
                                   static_cast<double>(xr[i])};
    })[0];
    // dx = rstd * g * w - x * rstd^3 * dot / n
    const double a = static_cast<double>(rstd[r]);
    const T at = static_cast<T>(a);
    const T kt = static_cast<T>(dot * a * a * a / static_cast<double>(n));
    T* out = dx + r * n;
    for (int64_t i = 0; i < n; ++i) out[i] = at * gr[i] * wp[i] - kt * xr[i];
  });
}

void require_same_shape(const std::string& op, const char* name, const TensorView& t, const TensorView& input) {
  if (t.sizes != input.sizes) {
    throw KernelError(op + ": " + name + " must have input's shape " + shape_str(input.sizes) + ", got " +
                      shape_str(t.sizes));
  }
}

// The checks every forward entry makes before it reads anything: a floating
// input and an output of its shape. Returns the rows the input is cut into.
RowShape forward_rows(const std::string& op, const char* input_name, const char* output_name,
                      const TensorView& output, const TensorView& input, int64_t normalized_dims) {
  require_floating_operand(op, input_name, input);
  require_same_shape(op, output_name, output, input);
  return row_shape(op, input, normalized_dims);
}

// The checks every backward entry makes before it reads anything: both
// operands floating and of one shape. Returns the rows they are cut into.
RowShape backward_rows(const std::string& op, const char* input_name, const char* grad_name,
                       const TensorView& grad_out, const TensorView& input, int64_t normalized_dims) {
  require_floating_operand(op, input_name, input);
  require_floating_operand(op, grad_name, grad_out);
  require_same_shape(op, grad_name, grad_out, input);
  return row_shape(op, input, normalized_dims);
}

// Writes the input gradient when it is wanted (grad_input not null); rows(dx)
// fills the contiguous compute-type rows dx.
template <class T, class Rows>
void write_grad_input(const std::string& op, const char* name, const TensorView* grad_input, const TensorView& input,
                      DType acc, Rows&& rows) {
  if (grad_input == nullptr) return;
  require_same_shape(op, name, *grad_input, input);
  write_contiguous(*grad_input, acc, [&](const TensorView& dx) { rows(dx.ptr<T>()); });
}

void require_row_elements(const std::string& op, const char* name, const TensorView* t, int64_t n) {
  if (t != nullptr && t->numel() != n) {
    throw KernelError(op + ": " + name + " must have " + std::to_string(n) + " elements");
  }
}

// The weight's and bias's gradients, each when wanted (not null): the sums
// of affine_grads, stored into N-element tensors.
template <class T>
void write_affine_grads(const std::string& op, const char* weight_name, const TensorView* grad_weight,
                        const char* bias_name, const TensorView* grad_bias, const T* g, const T* x, const RowShape& s,
                        const std::vector<T>* mean, const std::vector<T>& rstd) {
  if (grad_weight == nullptr && grad_bias == nullptr) return;
  require_row_elements(op, weight_name, grad_weight, s.n);
  require_row_elements(op, bias_name, grad_bias, s.n);
  std::vector<double> dw(grad_weight != nullptr ? s.n : 0, 0.0);
  std::vector<double> db(grad_bias != nullptr ? s.n : 0, 0.0);
  affine_grads(g, x, s, mean, rstd, grad_weight != nullptr ? &dw : nullptr, grad_bias != nullptr ? &db : nullptr);
  store_values(grad_weight, dw);
  store_values(grad_bias, db);
}

}  // namespace

void layer_norm(const TensorView& output, const TensorView& input, const LayerNormForward& a) {
  const std::string op = "layer_norm";
  const RowShape s = forward_rows(op, "input", "output", output, input, a.normalized_dims);
  in_compute_type(op, "weight", a.weight, s.n, input, nullptr, [&](auto zero, const auto& w, const auto* x, const auto*,
                                                                 DType acc) {
    using T = decltype(zero);
    const std::vector<T> b = values_or<T>(a.bias, s.n, T(0), op + ": bias");
    std::vector<T> mean(s.m), rstd(s.m);
    write_contiguous(output, acc, [&](const TensorView& y) {
      const bool reduced = input.dtype == DType::Float16 || input.dtype == DType::BFloat16;
      layer_norm_rows(y.ptr<T>(), x, s, w, b, a.eps, reduced, mean, rstd);
    });
    store_values(a.mean, mean);
    store_values(a.rstd, rstd);
  });
}

void layer_norm_backward(const TensorView& grad_out, const TensorView& input, const LayerNormBackward& a) {
  const std::string op = "layer_norm_backward";
  const RowShape s = backward_rows(op, "input", "gradOut", grad_out, input, a.normalized_dims);
  in_compute_type(op, "weight", a.weight, s.n, input, &grad_out, [&](auto zero, const auto& w, const auto* x,
                                                                   const auto* g, DType acc) {
    using T = decltype(zero);
    const std::vector<T> mean = values_or<T>(a.mean, s.m, T(0), op + ": mean");
    const std::vector<T> rstd = values_or<T>(a.rstd, s.m, T(0), op + ": rstd");
    write_grad_input<T>(op, "gradInput", a.grad_input, input, acc,
                        [&](T* dx) { layer_norm_backward_rows(dx, g, x, s, w, mean, rstd); });
    write_affine_grads(op, "gradWeight", a.grad_weight, "gradBias", a.grad_bias, g, x, s, &mean, rstd);
  });
}

void rms_norm(const TensorView& output, const TensorView& input, const RmsNormForward& a) {
  const std::string op = "rms_norm";
  const RowShape s = forward_rows(op, "x", "yOut", output, input, a.normalized_dims);
  in_compute_type(op, "gamma", a.weight, s.n, input, nullptr, [&](auto zero, const auto& w, const auto* x, const auto*,
                                                                DType acc) {
    using T = decltype(zero);
    std::vector<T> rstd(s.m);
    write_contiguous(output, acc, [&](const TensorView& y) { rms_norm_rows(y.ptr<T>(), x, s, w, a.eps, rstd); });
    store_values(a.rstd, rstd);
  });
}

void rms_norm_backward(const TensorView& grad_out, const TensorView& input, const RmsNormBackward& a) {
  const std::string op = "rms_norm_grad";
  const RowShape s = backward_rows(op, "x", "dy", grad_out, input, a.normalized_dims);
  in_compute_type(op, "gamma", a.weight, s.n, input, &grad_out, [&](auto zero, const auto& w, const auto* x,
                                                                  const auto* g, DType acc) {
    using T = decltype(zero);
    const std::vector<T> rstd = values_or<T>(a.rstd, s.m, T(0), op + ": rstd");
    write_grad_input<T>(op, "dxOut", a.grad_input, input, acc,
                        [&](T* dx) { rms_norm_backward_rows(dx, g, x, s, w, rstd); });
    write_affine_grads<T>(op, "dgammaOut", a.grad_weight, "", nullptr, g, x, s, nullptr, rstd);
  });
}

}  // namespace npu::kernels
