#include "kernels/norm/batch_norm.h"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels {

namespace {

// A [C] operand's values as double; `fallback` for every channel when absent.
std::vector<double> channel_values(const TensorView* t, int64_t c, double fallback, const char* name) {
  if (t == nullptr) return std::vector<double>(c, fallback);
  if (t->numel() != c) {
    throw KernelError(std::string("batch_norm: ") + name + " must have " + std::to_string(c) + " elements, got " +
                      shape_str(t->sizes));
  }
  std::vector<double> v(c);
  const TensorView dst{v.data(), DType::Float64, {c}, {1}};
  TensorView src = *t;
  src.sizes = {c};
  src.strides = {t->dim() == 0 ? 0 : t->strides[t->dim() - 1]};
  copy(dst, src);
  return v;
}

void write_channels(const TensorView* t, const std::vector<double>& v) {
  if (t == nullptr) return;
  const int64_t c = static_cast<int64_t>(v.size());
  TensorView dst = *t;
  dst.sizes = {c};
  dst.strides = {t->dim() == 0 ? 0 : t->strides[t->dim() - 1]};
  copy(dst, TensorView{const_cast<double*>(v.data()), DType::Float64, {c}, {1}});
}

// The input as contiguous [C, M] rows of the compute dtype.
struct ChannelRows {
  std::optional<ScratchTensor> holder;
  TensorView rows;
  int64_t c = 0;
  int64_t m = 0;
};

void stage_rows(ChannelRows& r, const TensorView& t, DType acc) {
  if (t.dim() < 2) throw KernelError("batch_norm: input must have at least 2 dims, got " + shape_str(t.sizes));
  r.c = t.sizes[1];
  r.m = r.c == 0 ? 0 : t.numel() / r.c;
  r.rows = contiguous_as(move_dim_first(t, 1), acc, r.holder);
}

template <class T>
void forward_rows(T* y, const T* x, int64_t c, int64_t m, bool training, std::vector<double>& mean,
                  std::vector<double>& var, std::vector<double>& invstd, const std::vector<double>& w,
                  const std::vector<double>& b, double eps, DType stats_dtype) {
  parallel_range(c, grain_for(m), [&](int64_t begin, int64_t end) {
    for (int64_t ch = begin; ch < end; ++ch) {
      const T* xr = x + ch * m;
      if (training) {
        double sum = 0;
        for (int64_t i = 0; i < m; ++i) sum += static_cast<double>(xr[i]);
        const double mu = sum / static_cast<double>(m);
        double sq = 0;
        for (int64_t i = 0; i < m; ++i) {
          const double d = static_cast<double>(xr[i]) - mu;
          sq += d * d;
        }
        mean[ch] = mu;
        var[ch] = sq;  // the sum of squares; divided by the caller
        invstd[ch] = 1.0 / std::sqrt(sq / static_cast<double>(m) + eps);
      }
      // y = x * alpha + beta, the form CPU's kernel evaluates, from the
      // statistics as saved (CPU normalizes with save_mean / save_invstd as
      // stored: rounded to float16 for a float16 input with float16
      // parameters). The running statistics take the unrounded values.
      const double mu = training ? rounded_to(stats_dtype, mean[ch]) : mean[ch];
      const double is = training ? rounded_to(stats_dtype, invstd[ch]) : invstd[ch];
      const T alpha = static_cast<T>(is) * static_cast<T>(w[ch]);
      const T beta = static_cast<T>(b[ch]) - static_cast<T>(mu) * alpha;
      T* yr = y + ch * m;
      for (int64_t i = 0; i < m; ++i) yr[i] = xr[i] * alpha + beta;
    }
  });
}

template <class T>
void backward_rows(T* gi, const T* g, const T* x, int64_t c, int64_t m, bool training,
                   const std::vector<double>& mean, const std::vector<double>& invstd, const std::vector<double>& w,
                   std::vector<double>& sum_g, std::vector<double>& dot) {
  parallel_range(c, grain_for(m), [&](int64_t begin, int64_t end) {
    for (int64_t ch = begin; ch < end; ++ch) {
      const T* gr = g + ch * m;
      const T* xr = x + ch * m;
      double s = 0;
      double d = 0;
      for (int64_t i = 0; i < m; ++i) {
        s += static_cast<double>(gr[i]);
        d += static_cast<double>(gr[i]) * (static_cast<double>(xr[i]) - mean[ch]);
      }
      sum_g[ch] = s;
      dot[ch] = d;
      if (gi == nullptr) continue;
      T* out = gi + ch * m;
      if (training) {
        const double n = static_cast<double>(m);
        const double k = d * invstd[ch] * invstd[ch] / n;
        const double gm = s / n;
        const double scale = invstd[ch] * w[ch];
        for (int64_t i = 0; i < m; ++i) {
          const double proj = (static_cast<double>(xr[i]) - mean[ch]) * k;
          out[i] = static_cast<T>((static_cast<double>(gr[i]) - proj - gm) * scale);
        }
      } else {
        const T scale = static_cast<T>(invstd[ch] * w[ch]);
        for (int64_t i = 0; i < m; ++i) out[i] = gr[i] * scale;
      }
    }
  });
}

void require_floating(const char* name, const TensorView& t) {
  if (!model::is_floating_point(t.dtype) || model::is_complex(t.dtype)) {
    throw KernelError(std::string("batch_norm: ") + name + " must be a floating point tensor, got " +
                      model::dtype_name(t.dtype));
  }
}

}  // namespace

void batch_norm(const TensorView& output, const TensorView& input, const BatchNormForward& a) {
  require_floating("input", input);
  if (output.sizes != input.sizes) throw KernelError("batch_norm: output must have input's shape");
  const DType acc = compute_dtype_of(input.dtype);
  ChannelRows r;
  stage_rows(r, input, acc);
  const int64_t c = r.c;
  const std::vector<double> w = channel_values(a.weight, c, 1.0, "weight");
  const std::vector<double> b = channel_values(a.bias, c, 0.0, "bias");
  std::vector<double> mean(c, 0.0), var(c, 0.0), invstd(c, 0.0);
  if (!a.training) {
    if (a.running_mean == nullptr || a.running_var == nullptr) {
      throw KernelError("batch_norm: running_mean and running_var are required when not training");
    }
    mean = channel_values(a.running_mean, c, 0.0, "running_mean");
    const std::vector<double> rv = channel_values(a.running_var, c, 1.0, "running_var");
    for (int64_t ch = 0; ch < c; ++ch) invstd[ch] = 1.0 / std::sqrt(rv[ch] + a.eps);
  }
  const DType stats_dtype = a.save_mean != nullptr ? a.save_mean->dtype : input.dtype;
  const TensorView out_rows = move_dim_first(output, 1);
  write_contiguous(out_rows, acc, [&](const TensorView& y) {
    if (acc == DType::Float64) {
      forward_rows(y.ptr<double>(), r.rows.ptr<double>(), c, r.m, a.training, mean, var, invstd, w, b, a.eps, stats_dtype);
    } else {
      forward_rows(y.ptr<float>(), r.rows.ptr<float>(), c, r.m, a.training, mean, var, invstd, w, b, a.eps, stats_dtype);
    }
  });
  if (!a.training) return;
  write_channels(a.save_mean, mean);
  write_channels(a.save_invstd, invstd);
  if (a.running_mean != nullptr) {
    std::vector<double> rm = channel_values(a.running_mean, c, 0.0, "running_mean");
    for (int64_t ch = 0; ch < c; ++ch) rm[ch] = (1.0 - a.momentum) * rm[ch] + a.momentum * mean[ch];
    write_channels(a.running_mean, rm);
  }
  if (a.running_var != nullptr) {
    std::vector<double> rv = channel_values(a.running_var, c, 1.0, "running_var");
    const double n = static_cast<double>(r.m);
    for (int64_t ch = 0; ch < c; ++ch) rv[ch] = (1.0 - a.momentum) * rv[ch] + a.momentum * (var[ch] / (n - 1.0));
    write_channels(a.running_var, rv);
  }
}

void batch_norm_backward(const TensorView& grad_out, const TensorView& input, const BatchNormBackward& a) {
  require_floating("input", input);
  require_floating("gradOut", grad_out);
  if (grad_out.sizes != input.sizes) throw KernelError("batch_norm_backward: gradOut must have input's shape");
  const DType acc = compute_dtype_of(input.dtype);
  ChannelRows x, g;
  stage_rows(x, input, acc);
  stage_rows(g, grad_out, acc);
  const int64_t c = x.c;
  const std::vector<double> w = channel_values(a.weight, c, 1.0, "weight");
  std::vector<double> mean, invstd;
  if (a.training) {
    if (a.save_mean == nullptr || a.save_invstd == nullptr) {
      throw KernelError("batch_norm_backward: saveMean and saveInvstd are required when training");
    }
    mean = channel_values(a.save_mean, c, 0.0, "saveMean");
    invstd = channel_values(a.save_invstd, c, 0.0, "saveInvstd");
  } else {
    if (a.running_mean == nullptr || a.running_var == nullptr) {
      throw KernelError("batch_norm_backward: runningMean and runningVar are required when not training");
    }
    mean = channel_values(a.running_mean, c, 0.0, "runningMean");
    invstd = channel_values(a.running_var, c, 1.0, "runningVar");
    for (double& v : invstd) v = 1.0 / std::sqrt(v + a.eps);
  }
  std::vector<double> sum_g(c), dot(c);
  auto run = [&](const TensorView* gi) {
    if (acc == DType::Float64) {
      backward_rows(gi ? gi->ptr<double>() : nullptr, g.rows.ptr<double>(), x.rows.ptr<double>(), c, x.m,
                    a.training, mean, invstd, w, sum_g, dot);
    } else {
      backward_rows(gi ? gi->ptr<float>() : nullptr, g.rows.ptr<float>(), x.rows.ptr<float>(), c, x.m, a.training,
                    mean, invstd, w, sum_g, dot);
    }
  };
  if (a.grad_input != nullptr) {
    if (a.grad_input->sizes != input.sizes) throw KernelError("batch_norm_backward: gradInput must have input's shape");
    write_contiguous(move_dim_first(*a.grad_input, 1), acc, [&](const TensorView& gi) { run(&gi); });
  } else {
    run(nullptr);
  }
  if (a.grad_weight != nullptr) {
    std::vector<double> gw(c);
    for (int64_t ch = 0; ch < c; ++ch) gw[ch] = dot[ch] * invstd[ch];
    write_channels(a.grad_weight, gw);
  }
  write_channels(a.grad_bias, sum_g);
}

}  // namespace npu::kernels
