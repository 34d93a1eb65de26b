#include "kernels/norm/group_norm.h"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/nd_iter.h"
#include "kernels/norm/norm_operands.h"

namespace npu::kernels {

namespace {

const std::string kForward = "group_norm";
const std::string kBackward = "group_norm_backward";

void check_shape(const std::string& op, const GroupNormShape& s, const TensorView& input) {
  if (s.n < 0 || s.c < 0 || s.hxw < 0) throw KernelError(op + ": N, C and HxW must not be negative");
  if (s.group <= 0 || s.c % s.group != 0) {
    throw KernelError(op + ": group must be positive and divide C (" + std::to_string(s.c) + "), got " +
                      std::to_string(s.group));
  }
  if (input.numel() != s.n * s.c * s.hxw) {
    throw KernelError(op + ": input of shape " + shape_str(input.sizes) + " does not hold N * C * HxW = " +
                      std::to_string(s.n * s.c * s.hxw) + " elements");
  }
}

template <class T>
void forward_groups(T* y, const T* x, const GroupNormShape& s, const std::vector<T>& w, const std::vector<T>& b,
                    double eps, std::vector<T>& mean, std::vector<T>& rstd) {
  const int64_t d = s.c / s.group;  // channels per group
  const int64_t block = d * s.hxw;  // elements per (n, group)
  parallel_range(s.n * s.group, grain_for(block), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t g = i % s.group;
      const T* xb = x + i * block;
      T* yb = y + i * block;
      T var;
      two_pass_moments(xb, block, mean[i], var);
      // 1 / sqrt(var + eps) in double (CPU's eps is a double here), then T.
      rstd[i] = static_cast<T>(1.0 / std::sqrt(static_cast<double>(var) + eps));
      for (int64_t k = 0; k < d; ++k) {
        const int64_t ch = g * d + k;
        // y = x * scale + shift with scale = rstd * w and shift = -scale *
        // mean + b, each rounded to T: CPU's order.
        const T scale = rstd[i] * w[ch];
        const T shift = -scale * mean[i] + b[ch];
        const T* xc = xb + k * s.hxw;
        T* yc = yb + k * s.hxw;
        for (int64_t j = 0; j < s.hxw; ++j) yc[j] = xc[j] * scale + shift;
      }
    }
  });
}

// Per (n, channel): sums over HxW of g * x (ds) and of g (db).
template <class T>
void channel_sums(const T* g, const T* x, const GroupNormShape& s, std::vector<double>& ds, std::vector<double>& db) {
  parallel_range(s.n * s.c, grain_for(s.hxw), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* gi = g + i * s.hxw;
      const T* xi = x + i * s.hxw;
      const auto [a, c] = lane_sums<2>(s.hxw, [&](int64_t j) {
        return std::array<double, 2>{static_cast<double>(gi[j]) * static_cast<double>(xi[j]),
                                     static_cast<double>(gi[j])};
      });
      ds[i] = a;
      db[i] = c;
    }
  });
}

template <class T>
void backward_input(T* dx, const T* g, const T* x, const GroupNormShape& s, const std::vector<T>& w,
                    const std::vector<T>& mean, const std::vector<T>& rstd, const std::vector<double>& ds,
                    const std::vector<double>& db) {
  const int64_t d = s.c / s.group;
  const int64_t block = d * s.hxw;
  parallel_range(s.n * s.group, grain_for(block), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / s.group;
      const int64_t g0 = (i % s.group) * d;
      double ds_g = 0;
      double db_g = 0;
      for (int64_t k = 0; k < d; ++k) {
        ds_g += ds[n * s.c + g0 + k] * static_cast<double>(w[g0 + k]);
        db_g += db[n * s.c + g0 + k] * static_cast<double>(w[g0 + k]);
      }
      const double a = static_cast<double>(rstd[i]);
      const CenteredGrad k = centered_grad(ds_g, db_g, a, static_cast<double>(mean[i]), block);
      const T c2t = static_cast<T>(k.scale);
      const T c3t = static_cast<T>(k.shift);
      for (int64_t k = 0; k < d; ++k) {
        const T c1 = static_cast<T>(a * static_cast<double>(w[g0 + k]));
        const int64_t off = i * block + k * s.hxw;
        for (int64_t j = 0; j < s.hxw; ++j) dx[off + j] = c1 * g[off + j] + c2t * x[off + j] + c3t;
      }
    }
  });
}

}  // namespace

void group_norm(const TensorView& output, const TensorView& input, const GroupNormForward& a) {
  require_floating_operand(kForward, "input", input);
  check_shape(kForward, a.shape, input);
  if (output.sizes != input.sizes) throw KernelError(kForward + ": out must have input's shape");
  const GroupNormShape& s = a.shape;
  in_compute_type(kForward, "gamma", a.weight, s.c, input, nullptr, [&](auto zero, const auto& w, const auto* x,
                                                                       const auto*, DType acc) {
    using T = decltype(zero);
    const std::vector<T> b = values_or<T>(a.bias, s.c, T(0), kForward + ": beta");
    std::vector<T> mean(s.n * s.group), rstd(s.n * s.group);
    write_contiguous(output, acc, [&](const TensorView& y) {
      forward_groups(y.ptr<T>(), x, s, w, b, a.eps, mean, rstd);
    });
    store_values(a.mean, mean);
    store_values(a.rstd, rstd);
  });
}

void group_norm_backward(const TensorView& grad_out, const TensorView& input, const GroupNormBackward& a) {
  require_floating_operand(kBackward, "input", input);
  require_floating_operand(kBackward, "gradOut", grad_out);
  check_shape(kBackward, a.shape, input);
  if (grad_out.sizes != input.sizes) throw KernelError(kBackward + ": gradOut must have input's shape");
  const GroupNormShape& s = a.shape;
  in_compute_type(kBackward, "gamma", a.weight, s.c, input, &grad_out, [&](auto zero, const auto& w, const auto* x,
                                                                          const auto* g, DType acc) {
    using T = decltype(zero);
    const std::vector<T> mean = values_or<T>(a.mean, s.n * s.group, T(0), kBackward + ": mean");
    const std::vector<T> rstd = values_or<T>(a.rstd, s.n * s.group, T(0), kBackward + ": rstd");
    std::vector<double> ds(s.n * s.c), db(s.n * s.c);
    channel_sums(g, x, s, ds, db);
    if (a.grad_input != nullptr) {
      if (a.grad_input->sizes != input.sizes) throw KernelError(kBackward + ": gradInput must have input's shape");
      write_contiguous(*a.grad_input, acc, [&](const TensorView& dx) {
        backward_input(dx.ptr<T>(), g, x, s, w, mean, rstd, ds, db);
      });
    }
    const int64_t d = s.c / s.group;
    if (a.grad_weight != nullptr) {
      std::vector<double> dw(s.c, 0.0);
      for (int64_t n = 0; n < s.n; ++n) {
        for (int64_t ch = 0; ch < s.c; ++ch) {
          const int64_t i = n * s.group + ch / d;
          dw[ch] += (ds[n * s.c + ch] - db[n * s.c + ch] * static_cast<double>(mean[i])) *
                    static_cast<double>(rstd[i]);
        }
      }
      if (a.grad_weight->numel() != s.c) throw KernelError(kBackward + ": gradGammaOut must have C elements");
      store_values(a.grad_weight, dw);
    }
    if (a.grad_bias != nullptr) {
      std::vector<double> dbias(s.c, 0.0);
      for (int64_t n = 0; n < s.n; ++n) {
        for (int64_t ch = 0; ch < s.c; ++ch) dbias[ch] += db[n * s.c + ch];
      }
      if (a.grad_bias->numel() != s.c) throw KernelError(kBackward + ": gradBetaOut must have C elements");
      store_values(a.grad_bias, dbias);
    }
  });
}

}  // namespace npu::kernels
