#include "kernels/loss/nll_loss.h"

#include <string>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

namespace {

// The [N, C, S] view of the scores and the [N, S] targets as int64.
struct LossLayout {
  int64_t n = 1;
  int64_t c = 1;
  int64_t s = 1;
  std::vector<int64_t> targets;  // n * s
};

LossLayout layout_of(const TensorView& self, const TensorView& target) {
  LossLayout l;
  if (self.dim() == 1) {
    l.c = self.sizes[0];
  } else if (self.dim() >= 2) {
    l.n = self.sizes[0];
    l.c = self.sizes[1];
    for (int64_t d = 2; d < self.dim(); ++d) l.s *= self.sizes[d];
  } else {
    throw KernelError("nll_loss: self must have 1 or more dims, got a 0-dim tensor");
  }
  if (target.numel() != l.n * l.s) {
    throw KernelError("nll_loss: target " + shape_str(target.sizes) + " does not match self " +
                      shape_str(self.sizes));
  }
  if (target.dtype != DType::Int64 && target.dtype != DType::UInt8) {
    throw KernelError(std::string("nll_loss: target must be int64 or uint8, got ") + model::dtype_name(target.dtype));
  }
  l.targets.resize(l.n * l.s);
  const TensorView dst{l.targets.data(), DType::Int64, target.sizes, contiguous_strides(target.sizes)};
  copy(dst, target);
  return l;
}

// The weight of class t (1 without weights), checking t's range.
double class_weight(const std::vector<double>& w, int64_t t, int64_t c) {
  if (t < 0 || t >= c) throw KernelError("nll_loss: Target " + std::to_string(t) + " is out of bounds.");
  return w.empty() ? 1.0 : w[t];
}

std::vector<double> weights_of(const TensorView* weight, int64_t c) {
  if (weight == nullptr) return {};
  if (weight->numel() != c) {
    throw KernelError("nll_loss: weight must have " + std::to_string(c) + " elements, got " +
                      shape_str(weight->sizes));
  }
  std::vector<double> w(c);
  TensorView src = *weight;
  src.sizes = {c};
  src.strides = {weight->dim() == 0 ? 0 : weight->strides[weight->dim() - 1]};
  copy(TensorView{w.data(), DType::Float64, {c}, {1}}, src);
  return w;
}

void write_scalar(const TensorView& t, double v) {
  TensorView dst = t;
  dst.sizes = {};
  dst.strides = {};
  copy(dst, TensorView{&v, DType::Float64, {}, {}});
}

double read_scalar(const TensorView& t) {
  if (t.numel() != 1) throw KernelError("nll_loss: expected a one-element tensor, got " + shape_str(t.sizes));
  double v = 0;
  TensorView src = t;
  src.sizes = {};
  src.strides = {};
  copy(TensorView{&v, DType::Float64, {}, {}}, src);
  return v;
}

}  // namespace

void nll_loss(const TensorView& out, const TensorView& total_weight, const TensorView& self, const TensorView& target,
              const TensorView* weight, LossReduction reduction, int64_t ignore_index) {
  const LossLayout l = layout_of(self, target);
  const std::vector<double> w = weights_of(weight, l.c);
  const DType acc = compute_dtype_of(self.dtype);
  std::optional<ScratchTensor> hx;
  const TensorView xs = contiguous_as(self, acc, hx);
  auto score = [&](int64_t n, int64_t t, int64_t s) -> double {
    const int64_t i = (n * l.c + t) * l.s + s;
    return acc == DType::Float64 ? xs.ptr<double>()[i] : static_cast<double>(xs.ptr<float>()[i]);
  };
  if (reduction == LossReduction::None) {
    if (out.numel() != l.n * l.s) throw KernelError("nll_loss: out must have target's shape");
    std::vector<double> losses(l.n * l.s, 0.0);
    for (int64_t n = 0; n < l.n; ++n) {
      for (int64_t s = 0; s < l.s; ++s) {
        const int64_t t = l.targets[n * l.s + s];
        if (t == ignore_index) continue;
        losses[n * l.s + s] = -class_weight(w, t, l.c) * score(n, t, s);
      }
    }
    copy(out, TensorView{losses.data(), DType::Float64, out.sizes, contiguous_strides(out.sizes)});
    write_scalar(total_weight, 0.0);
    return;
  }
  if (out.numel() != 1) throw KernelError("nll_loss: out must have one element for reduction mean or sum");
  double sum = 0;
  double total = 0;
  for (int64_t n = 0; n < l.n; ++n) {
    for (int64_t s = 0; s < l.s; ++s) {
      const int64_t t = l.targets[n * l.s + s];
      if (t == ignore_index) continue;
      const double cw = class_weight(w, t, l.c);
      sum -= cw * score(n, t, s);
      total += cw;
    }
  }
  write_scalar(total_weight, total);
  write_scalar(out, reduction == LossReduction::Mean ? sum / total : sum);
}

void nll_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                       const TensorView& target, const TensorView* weight, LossReduction reduction,
                       int64_t ignore_index, const TensorView& total_weight) {
  const LossLayout l = layout_of(self, target);
  const std::vector<double> w = weights_of(weight, l.c);
  if (grad_input.sizes != self.sizes) throw KernelError("nll_loss_backward: out must have self's shape");
  const DType acc = compute_dtype_of(self.dtype);
  std::vector<double> g;
  double scale = 1.0;
  if (reduction == LossReduction::None) {
    if (grad_output.numel() != l.n * l.s) throw KernelError("nll_loss_backward: gradOutput must have target's shape");
    g.resize(l.n * l.s);
    copy(TensorView{g.data(), DType::Float64, grad_output.sizes, contiguous_strides(grad_output.sizes)}, grad_output);
  } else {
    g.assign(1, read_scalar(grad_output));
    if (reduction == LossReduction::Mean) scale = 1.0 / read_scalar(total_weight);
  }
  write_contiguous(grad_input, acc, [&](const TensorView& gi) {
    auto put = [&](int64_t i, double v) {
      if (acc == DType::Float64) {
        gi.ptr<double>()[i] = v;
      } else {
        gi.ptr<float>()[i] = static_cast<float>(v);
      }
    };
    for (int64_t i = 0; i < gi.numel(); ++i) put(i, 0.0);
    for (int64_t n = 0; n < l.n; ++n) {
      for (int64_t s = 0; s < l.s; ++s) {
        const int64_t t = l.targets[n * l.s + s];
        if (t == ignore_index) continue;
        const double go = g.size() == 1 ? g[0] : g[n * l.s + s];
        put((n * l.c + t) * l.s + s, -class_weight(w, t, l.c) * go * scale);
      }
    }
  });
}

}  // namespace npu::kernels
