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

// One element's loss in the element type T, rounding where CPU's kernel
// rounds: mse and binary_cross_entropy compute in T (a reduced float rounds
// after every operation), smooth_l1, huber and log_sigmoid in float.
// pos_weight is used by BinaryCrossEntropyWithLogits only.
template <class T>
T loss_value(PointwiseLoss fn, T x, T y, opmath_t<T> param, T pos_weight) {
  using C = opmath_t<T>;
  switch (fn) {
    case PointwiseLoss::Mse: {
      const T d = x - y;
      return d * d;
    }
    case PointwiseLoss::SmoothL1: {
      const C z = std::abs(static_cast<C>(x) - static_cast<C>(y));
      return static_cast<T>(z < param ? C(0.5) * z * z / param : z - C(0.5) * param);
    }
    case PointwiseLoss::Huber: {
      const C z = std::abs(static_cast<C>(x) - static_cast<C>(y));
      return static_cast<T>(z < param ? C(0.5) * z * z : param * (z - C(0.5) * param));
    }
    case PointwiseLoss::BinaryCrossEntropy: {
      if (!(x >= T(0) && x <= T(1))) {
        throw KernelError("binary_cross_entropy: all elements of input should be between 0 and 1");
      }
      const T log_x = std::max(static_cast<T>(std::log(static_cast<C>(x))), T(-100));
      const T log_1mx = std::max(static_cast<T>(std::log1p(-static_cast<C>(x))), T(-100));
      return T(T(y - T(1)) * log_1mx) - T(y * log_x);
    }
    case PointwiseLoss::BinaryCrossEntropyWithLogits: {
      // CPU: (1 - y) * x - log_sigmoid(x) * ((pos_weight - 1) * y + 1), each product a tensor of T.
      const T log_sigmoid = static_cast<T>(-neg_log_sigmoid(static_cast<C>(x)));
      const T log_weight = T(T(T(pos_weight - T(1)) * y) + T(1));
      return T(T(T(1) - y) * x) - T(log_sigmoid * log_weight);
    }
  }
  return T(0);
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

template <class T>
void forward(const TensorView& out, const TensorView& self, const TensorView& target, const TensorView* weight,
             PointwiseLoss fn, opmath_t<T> param, LossReduction reduction, const TensorView* pos_weight) {
  // Operands in out's dtype, as CPU's TensorIterator casts them to it.
  const DType dt = out.dtype;
  const Shape shape = broadcast_shapes(self.sizes, target.sizes);
  const std::vector<T> x = staged<T>(self, shape, dt);
  const std::vector<T> y = staged<T>(target, shape, dt);
  const std::vector<T> w = weight != nullptr ? staged<T>(*weight, shape, dt) : std::vector<T>{};
  const std::vector<T> pw = pos_weight != nullptr ? staged<T>(*pos_weight, shape, dt) : std::vector<T>{};
  std::vector<T> losses(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T l = loss_value<T>(fn, x[i], y[i], param, pw.empty() ? T(1) : pw[i]);
    losses[i] = w.empty() ? l : T(l * w[i]);
  }
  if (reduction == LossReduction::None) {
    if (out.sizes != shape) {
      throw KernelError(std::string(name_of(fn)) + ": out must have shape " + shape_str(shape) + ", got " +
                        shape_str(out.sizes));
    }
    copy(out, TensorView{losses.data(), dt, shape, contiguous_strides(shape)});
    return;
  }
  if (out.numel() != 1) {
    throw KernelError(std::string(name_of(fn)) + ": out must have one element for reduction mean or sum");
  }
  double sum = 0;
  for (const T l : losses) sum += static_cast<double>(static_cast<opmath_t<T>>(l));
  // An empty mean is 0/0 = nan, as CPU's.
  const double r = reduction == LossReduction::Mean ? sum / static_cast<double>(losses.size()) : sum;
  T v = static_cast<T>(static_cast<opmath_t<T>>(r));
  TensorView dst = out;
  dst.sizes = {};
  dst.strides = {};
  copy(dst, TensorView{&v, dt, {}, {}});
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
  switch (out.dtype) {
    case DType::Float64: return forward<double>(out, self, target, weight, fn, param, reduction, pos_weight);
    case DType::Float32:
      return forward<float>(out, self, target, weight, fn, static_cast<float>(param), reduction, pos_weight);
    case DType::Float16:
      return forward<half>(out, self, target, weight, fn, static_cast<float>(param), reduction, pos_weight);
    default:
      return forward<bfloat16>(out, self, target, weight, fn, static_cast<float>(param), reduction, pos_weight);
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
