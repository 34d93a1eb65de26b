#include "kernels/loss/pointwise_loss.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

namespace {

const char* name_of(PointwiseLoss fn) {
  switch (fn) {
    case PointwiseLoss::Mse: return "mse_loss";
    case PointwiseLoss::SmoothL1: return "smooth_l1_loss";
    case PointwiseLoss::Huber: return "huber_loss";
    case PointwiseLoss::BinaryCrossEntropy: return "binary_cross_entropy";
    case PointwiseLoss::BinaryCrossEntropyWithLogits: return "binary_cross_entropy_with_logits";
  }
  return "loss";
}

void require_floating(const TensorView& t, PointwiseLoss fn, const char* what) {
  if (!model::is_floating_point(t.dtype)) {
    throw KernelError(std::string(name_of(fn)) + ": " + what + " must be a floating point tensor, got " +
                      model::dtype_name(t.dtype));
  }
}

// `t` broadcast to `shape` as a contiguous buffer of the compute type C.
template <class C>
std::vector<C> staged(const TensorView& t, const Shape& shape, DType cdt) {
  int64_t n = 1;
  for (const int64_t s : shape) n *= s;
  std::vector<C> v(static_cast<std::size_t>(n));
  if (v.empty()) return v;
  copy(TensorView{v.data(), cdt, shape, contiguous_strides(shape)}, broadcast_to(t, shape));
  return v;
}

// -log(sigmoid(x)) without overflow: log1p(exp(-|x|)) + max(-x, 0).
template <class C>
C neg_log_sigmoid(C x) {
  return std::log1p(std::exp(-std::abs(x))) + std::max(-x, C(0));
}

// param is the element's pos_weight for BinaryCrossEntropyWithLogits.
template <class C>
C loss_value(PointwiseLoss fn, C x, C y, C param) {
  switch (fn) {
    case PointwiseLoss::Mse: {
      const C d = x - y;
      return d * d;
    }
    case PointwiseLoss::SmoothL1: {
      const C z = std::abs(x - y);
      return z < param ? C(0.5) * z * z / param : z - C(0.5) * param;
    }
    case PointwiseLoss::Huber: {
      const C z = std::abs(x - y);
      return z < param ? C(0.5) * z * z : param * (z - C(0.5) * param);
    }
    case PointwiseLoss::BinaryCrossEntropy: {
      if (!(x >= C(0) && x <= C(1))) {
        throw KernelError("binary_cross_entropy: all elements of input should be between 0 and 1");
      }
      const C log_x = std::max(std::log(x), C(-100));
      const C log_1mx = std::max(std::log1p(-x), C(-100));
      return (y - C(1)) * log_1mx - y * log_x;
    }
    case PointwiseLoss::BinaryCrossEntropyWithLogits:
      return (C(1) - y) * x + (C(1) + (param - C(1)) * y) * neg_log_sigmoid(x);
  }
  return C(0);
}

// d loss / d x, without the upstream gradient and the mean's 1/N.
template <class C>
C loss_grad(PointwiseLoss fn, C x, C y, C param) {
  const C d = x - y;
  switch (fn) {
    case PointwiseLoss::Mse: return C(2) * d;
    case PointwiseLoss::SmoothL1:
      if (d <= -param) return C(-1);
      if (d >= param) return C(1);
      return d / param;
    case PointwiseLoss::Huber:
      if (d <= -param) return -param;
      if (d >= param) return param;
      return d;
    case PointwiseLoss::BinaryCrossEntropy: {
      constexpr C kEpsilon = C(1e-12);
      return d / std::max((C(1) - x) * x, kEpsilon);
    }
    case PointwiseLoss::BinaryCrossEntropyWithLogits:
      throw KernelError("binary_cross_entropy_with_logits: no fused backward (autograd composes it)");
  }
  return C(0);
}

template <class C>
void forward(const TensorView& out, const TensorView& self, const TensorView& target, const TensorView* weight,
             PointwiseLoss fn, C param, LossReduction reduction, const TensorView* pos_weight) {
  const DType cdt = compute_dtype_of(out.dtype);
  const Shape shape = broadcast_shapes(self.sizes, target.sizes);
  const std::vector<C> x = staged<C>(self, shape, cdt);
  const std::vector<C> y = staged<C>(target, shape, cdt);
  const std::vector<C> w = weight != nullptr ? staged<C>(*weight, shape, cdt) : std::vector<C>{};
  const std::vector<C> pw = pos_weight != nullptr ? staged<C>(*pos_weight, shape, cdt) : std::vector<C>{};
  std::vector<C> losses(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const C p = fn == PointwiseLoss::BinaryCrossEntropyWithLogits ? (pw.empty() ? C(1) : pw[i]) : param;
    // CPU stores the unreduced loss (and its weighted product) in out's dtype.
    C l = static_cast<C>(rounded_to(out.dtype, loss_value(fn, x[i], y[i], p)));
    if (!w.empty()) l = static_cast<C>(rounded_to(out.dtype, l * w[i]));
    losses[i] = l;
  }
  if (reduction == LossReduction::None) {
    if (out.sizes != shape) {
      throw KernelError(std::string(name_of(fn)) + ": out must have shape " + shape_str(shape) + ", got " +
                        shape_str(out.sizes));
    }
    copy(out, TensorView{losses.data(), cdt, shape, contiguous_strides(shape)});
    return;
  }
  if (out.numel() != 1) {
    throw KernelError(std::string(name_of(fn)) + ": out must have one element for reduction mean or sum");
  }
  double sum = 0;
  for (const C l : losses) sum += static_cast<double>(l);
  // An empty mean is 0/0 = nan, as CPU's.
  const double r = reduction == LossReduction::Mean ? sum / static_cast<double>(losses.size()) : sum;
  C v = static_cast<C>(r);
  TensorView dst = out;
  dst.sizes = {};
  dst.strides = {};
  copy(dst, TensorView{&v, cdt, {}, {}});
}

template <class C>
void backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
              const TensorView& target, const TensorView* weight, PointwiseLoss fn, C param,
              LossReduction reduction) {
  const DType cdt = compute_dtype_of(grad_input.dtype);
  const Shape shape = grad_input.sizes;
  const std::vector<C> x = staged<C>(self, shape, cdt);
  const std::vector<C> y = staged<C>(target, shape, cdt);
  const std::vector<C> g = staged<C>(grad_output, shape, cdt);
  const std::vector<C> w = weight != nullptr ? staged<C>(*weight, shape, cdt) : std::vector<C>{};
  const C norm = reduction == LossReduction::Mean ? C(1) / static_cast<C>(self.numel()) : C(1);
  std::vector<C> gi(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    C v = loss_grad(fn, x[i], y[i], param) * g[i];
    if (!w.empty()) v *= w[i];
    gi[i] = v * norm;
  }
  copy(grad_input, TensorView{gi.data(), cdt, shape, contiguous_strides(shape)});
}

}  // namespace

void pointwise_loss(const TensorView& out, const TensorView& self, const TensorView& target,
                    const TensorView* weight, PointwiseLoss fn, double param, LossReduction reduction,
                    const TensorView* pos_weight) {
  require_floating(out, fn, "out");
  if (out.dtype == DType::Float64) {
    forward<double>(out, self, target, weight, fn, param, reduction, pos_weight);
  } else {
    forward<float>(out, self, target, weight, fn, static_cast<float>(param), reduction, pos_weight);
  }
}

void pointwise_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                             const TensorView& target, const TensorView* weight, PointwiseLoss fn, double param,
                             LossReduction reduction) {
  require_floating(grad_input, fn, "gradInput");
  if (grad_input.dtype == DType::Float64) {
    backward<double>(grad_input, grad_output, self, target, weight, fn, param, reduction);
  } else {
    backward<float>(grad_input, grad_output, self, target, weight, fn, static_cast<float>(param), reduction);
  }
}

}  // namespace npu::kernels
