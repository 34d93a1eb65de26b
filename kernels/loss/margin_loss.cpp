#include "kernels/loss/margin_loss.h"

#include <string>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

namespace {

// The [N, C] view of the scores: 0- and 1-dim scores are one sample.
struct Frames {
  int64_t n = 1;
  int64_t c = 1;
};

Frames frames_of(const TensorView& self, const char* op) {
  if (self.dim() > 2) throw KernelError(std::string(op) + ": self must have at most 2 dims, got " + shape_str(self.sizes));
  Frames f;
  if (self.dim() == 1) f.c = self.sizes[0];
  if (self.dim() == 2) {
    f.n = self.sizes[0];
    f.c = self.sizes[1];
  }
  return f;
}

// A tensor's values, contiguous, as T (a dtype conversion where needed).
template <class T>
std::vector<T> values(const TensorView& t, DType as) {
  std::vector<T> v(static_cast<std::size_t>(t.numel()));
  if (!v.empty()) copy(TensorView{v.data(), as, t.sizes, contiguous_strides(t.sizes)}, t);
  return v;
}

std::vector<double> doubles(const TensorView& t) { return values<double>(t, DType::Float64); }
std::vector<int64_t> longs(const TensorView& t) { return values<int64_t>(t, DType::Int64); }

void write_doubles(const TensorView& out, std::vector<double> v) {
  copy(out, TensorView{v.data(), DType::Float64, out.sizes, contiguous_strides(out.sizes)});
}

void write_reduced(const TensorView& out, const std::vector<double>& per_sample, LossReduction reduction,
                   const char* op) {
  if (reduction == LossReduction::None && out.numel() == static_cast<int64_t>(per_sample.size()) &&
      out.dim() > 0) {
    write_doubles(out, per_sample);
    return;
  }
  if (out.numel() != 1) throw KernelError(std::string(op) + ": out must have one element, got " + shape_str(out.sizes));
  double sum = 0;
  for (const double v : per_sample) sum += v;
  // The mean of no samples is 0 / 0 = nan, as torch.mean's (CPU's margin
  // losses leave that result uninitialized).
  if (reduction == LossReduction::Mean) sum /= static_cast<double>(per_sample.size());
  write_doubles(out, {sum});
}

// The upstream gradient of sample i: per sample for None with [N] losses, else the one value.
double upstream(const std::vector<double>& g, int64_t i) { return g.size() == 1 ? g[0] : g[static_cast<std::size_t>(i)]; }

void check_class(int64_t t, int64_t c, const char* op) {
  if (t < 0 || t >= c) throw KernelError(std::string(op) + ": target " + std::to_string(t) + " is out of bounds [0, " + std::to_string(c) + ")");
}

}  // namespace

void multi_margin_loss(const TensorView& out, const TensorView& self, const TensorView& target, int64_t p,
                       double margin, const TensorView* weight, LossReduction reduction) {
  const Frames f = frames_of(self, "multi_margin_loss");
  const std::vector<double> x = doubles(self);
  const std::vector<int64_t> y = longs(target);
  const std::vector<double> w = weight != nullptr ? doubles(*weight) : std::vector<double>{};
  if (static_cast<int64_t>(y.size()) != f.n) throw KernelError("multi_margin_loss: target must have one class per sample");
  std::vector<double> losses(static_cast<std::size_t>(f.n), 0.0);
  for (int64_t i = 0; i < f.n; ++i) {
    const int64_t t = y[i];
    check_class(t, f.c, "multi_margin_loss");
    const double* row = x.data() + i * f.c;
    double sum = 0;
    for (int64_t j = 0; j < f.c; ++j) {
      if (j == t) continue;
      const double z = margin - row[t] + row[j];
      if (z <= 0) continue;
      double h = p == 1 ? z : z * z;
      if (!w.empty()) h *= w[t];
      sum += h;
    }
    losses[i] = sum / static_cast<double>(f.c);
  }
  write_reduced(out, losses, reduction, "multi_margin_loss");
}

void multi_margin_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                                const TensorView& target, int64_t p, double margin, const TensorView* weight,
                                LossReduction reduction) {
  const Frames f = frames_of(self, "multi_margin_loss_backward");
  const std::vector<double> x = doubles(self);
  const std::vector<int64_t> y = longs(target);
  const std::vector<double> go = doubles(grad_output);
  const std::vector<double> w = weight != nullptr ? doubles(*weight) : std::vector<double>{};
  if (static_cast<int64_t>(y.size()) != f.n) throw KernelError("multi_margin_loss_backward: target must have one class per sample");
  const double g = reduction == LossReduction::Mean ? 1.0 / static_cast<double>(f.n * f.c) : 1.0 / static_cast<double>(f.c);
  std::vector<double> gi(x.size(), 0.0);
  for (int64_t i = 0; i < f.n; ++i) {
    const int64_t t = y[i];
    check_class(t, f.c, "multi_margin_loss_backward");
    const double* row = x.data() + i * f.c;
    double* grow = gi.data() + i * f.c;
    const double scale = upstream(go, i);
    for (int64_t j = 0; j < f.c; ++j) {
      if (j == t) continue;
      const double z = margin - row[t] + row[j];
      if (z <= 0) continue;
      double h = p == 1 ? g : 2 * g * z;
      if (!w.empty()) h *= w[t];
      grow[t] -= h * scale;
      grow[j] = h * scale;
    }
  }
  write_doubles(grad_input, std::move(gi));
}

void multilabel_margin_loss(const TensorView& out, const TensorView& is_target, const TensorView& self,
                            const TensorView& target, LossReduction reduction) {
  const Frames f = frames_of(self, "multilabel_margin_loss");
  const std::vector<double> x = doubles(self);
  const std::vector<int64_t> y = longs(target);
  if (static_cast<int64_t>(y.size()) != f.n * f.c) throw KernelError("multilabel_margin_loss: target must have self's shape");
  std::vector<double> marks(x.size(), 0.0);
  std::vector<double> losses(static_cast<std::size_t>(f.n), 0.0);
  for (int64_t i = 0; i < f.n; ++i) {
    const int64_t* labels = y.data() + i * f.c;
    double* mark = marks.data() + i * f.c;
    int64_t listed = 0;
    for (; listed < f.c && labels[listed] >= 0; ++listed) {
      check_class(labels[listed], f.c, "multilabel_margin_loss");
      mark[labels[listed]] = 1;
    }
    if (listed < f.c && labels[listed] != -1) check_class(labels[listed], f.c, "multilabel_margin_loss");
    const double* row = x.data() + i * f.c;
    double sum = 0;
    for (int64_t k = 0; k < listed; ++k) {
      const double xt = row[labels[k]];
      for (int64_t j = 0; j < f.c; ++j) {
        if (mark[j] != 0) continue;
        const double z = 1 - xt + row[j];
        if (z > 0) sum += z;
      }
    }
    losses[i] = sum / static_cast<double>(f.c);
  }
  write_doubles(is_target, std::move(marks));
  write_reduced(out, losses, reduction, "multilabel_margin_loss");
}

void multilabel_margin_loss_backward(const TensorView& grad_input, const TensorView& grad_output,
                                     const TensorView& self, const TensorView& target, LossReduction reduction,
                                     const TensorView& is_target) {
  const Frames f = frames_of(self, "multilabel_margin_loss_backward");
  const std::vector<double> x = doubles(self);
  const std::vector<int64_t> y = longs(target);
  const std::vector<double> marks = doubles(is_target);
  const std::vector<double> go = doubles(grad_output);
  if (static_cast<int64_t>(y.size()) != f.n * f.c || static_cast<int64_t>(marks.size()) != f.n * f.c) {
    throw KernelError("multilabel_margin_loss_backward: target and is_target must have self's shape");
  }
  const double g = reduction == LossReduction::Mean ? 1.0 / static_cast<double>(f.n * f.c) : 1.0 / static_cast<double>(f.c);
  std::vector<double> gi(x.size(), 0.0);
  for (int64_t i = 0; i < f.n; ++i) {
    const int64_t* labels = y.data() + i * f.c;
    const double* mark = marks.data() + i * f.c;
    const double* row = x.data() + i * f.c;
    double* grow = gi.data() + i * f.c;
    for (int64_t k = 0; k < f.c && labels[k] >= 0; ++k) {
      check_class(labels[k], f.c, "multilabel_margin_loss_backward");
      const double xt = row[labels[k]];
      for (int64_t j = 0; j < f.c; ++j) {
        if (mark[j] != 0) continue;
        if (1 - xt + row[j] > 0) {
          grow[labels[k]] -= g;
          grow[j] += g;
        }
      }
    }
    const double scale = upstream(go, i);
    for (int64_t j = 0; j < f.c; ++j) grow[j] *= scale;
  }
  write_doubles(grad_input, std::move(gi));
}

}  // namespace npu::kernels
