#include "kernels/loss/nll_loss.h"

#include <algorithm>
#include <array>
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

void check_target(int64_t t, int64_t c) {
  if (t < 0 || t >= c) throw KernelError("nll_loss: Target " + std::to_string(t) + " is out of bounds.");
}

// Calls f(n, s, i, t) for every target t = targets[i], i = n * S + s, in
// order, skipping ignore_index and checking that the others name a class:
// the walk every forward and backward pass makes.
template <class F>
void for_each_target(const LossLayout& l, int64_t ignore_index, F&& f) {
  for (int64_t n = 0; n < l.n; ++n) {
    for (int64_t s = 0; s < l.s; ++s) {
      const int64_t i = n * l.s + s;
      const int64_t t = l.targets[i];
      if (t == ignore_index) continue;
      check_target(t, l.c);
      f(n, s, i, t);
    }
  }
}

// A tensor's values (of T's dtype) as a contiguous vector.
template <class T>
std::vector<T> values_as(const TensorView& t) {
  std::vector<T> v(t.numel());
  if (v.empty()) return v;
  copy(TensorView{v.data(), t.dtype, t.sizes, contiguous_strides(t.sizes)}, t);
  return v;
}

template <class T>
std::vector<T> weights_as(const TensorView* weight, int64_t c, DType dtype) {
  if (weight == nullptr) return {};
  if (weight->numel() != c) {
    throw KernelError("nll_loss: weight must have " + std::to_string(c) + " elements, got " +
                      shape_str(weight->sizes));
  }
  std::vector<T> w(c);
  TensorView src = *weight;
  src.sizes = {c};
  src.strides = {weight->dim() == 0 ? 0 : weight->strides[weight->dim() - 1]};
  copy(TensorView{w.data(), dtype, {c}, {1}}, src);
  return w;
}

template <class T>
void write_scalar(const TensorView& t, T v, DType dtype) {
  TensorView dst = t;
  dst.sizes = {};
  dst.strides = {};
  copy(dst, TensorView{&v, dtype, {}, {}});
}

template <class T>
T read_scalar(const TensorView& t, DType dtype) {
  if (t.numel() != 1) throw KernelError("nll_loss: expected a one-element tensor, got " + shape_str(t.sizes));
  T v{};
  TensorView src = t;
  src.sizes = {};
  src.strides = {};
  copy(TensorView{&v, dtype, {}, {}}, src);
  return v;
}

int64_t ceil_log2(int64_t n) {
  int64_t r = 0;
  while ((int64_t{1} << r) < n) ++r;
  return r;
}

// Sums in the element type T along a cascade of partial sums (level j+1
// takes level j every 2^level_power elements), the order CPU's kernel adds
// in, so reduced-float results round as CPU's do.
template <class T>
class CascadeSum {
 public:
  explicit CascadeSum(int64_t count)
      : level_power_(std::max<int64_t>(4, ceil_log2(count) / kLevels)), level_mask_((int64_t{1} << level_power_) - 1) {
    partial_.fill(T(0));
  }
  // Adds `v` as element `index` of the sequence (subtracts with `negate`).
  void add(int64_t index, T v, bool negate) {
    partial_[0] = negate ? T(partial_[0] - v) : T(partial_[0] + v);
    for (int64_t j = 0; j + 1 < kLevels; ++j) {
      if ((index & (level_mask_ << (j * level_power_))) != 0) break;
      partial_[j + 1] = T(partial_[j + 1] + partial_[j]);
      partial_[j] = T(0);
    }
  }
  T total() const {
    T sum(0);
    for (const T& p : partial_) sum = T(sum + p);
    return sum;
  }

 private:
  static constexpr int64_t kLevels = 8;
  int64_t level_power_;
  int64_t level_mask_;
  std::array<T, kLevels> partial_{};
};

template <class T>
void nll_forward(const TensorView& out, const TensorView& total_weight, const TensorView& self, const LossLayout& l,
                 const TensorView* weight, LossReduction reduction, int64_t ignore_index) {
  std::optional<ScratchTensor> hx;
  const TensorView xs = contiguous_as(self, self.dtype, hx);
  const T* x = xs.ptr<T>();
  const std::vector<T> w = weights_as<T>(weight, l.c, self.dtype);
  auto score = [&](int64_t n, int64_t t, int64_t s) { return x[(n * l.c + t) * l.s + s]; };
  if (reduction == LossReduction::None) {
    if (out.numel() != l.n * l.s) throw KernelError("nll_loss: out must have target's shape");
    std::vector<T> losses(l.n * l.s, T(0));
    for_each_target(l, ignore_index, [&](int64_t n, int64_t s, int64_t i, int64_t t) {
      losses[i] = w.empty() ? T(-score(n, t, s)) : T(-T(score(n, t, s) * w[t]));
    });
    copy(out, TensorView{losses.data(), self.dtype, out.sizes, contiguous_strides(out.sizes)});
    write_scalar(total_weight, T(0), self.dtype);
    return;
  }
  if (out.numel() != 1) throw KernelError("nll_loss: out must have one element for reduction mean or sum");
  CascadeSum<T> loss(l.n * l.s);
  CascadeSum<T> weights(l.n * l.s);
  int64_t counted = 0;
  for_each_target(l, ignore_index, [&](int64_t n, int64_t s, int64_t i, int64_t t) {
    ++counted;
    const T cw = w.empty() ? T(1) : w[t];
    loss.add(i, w.empty() ? score(n, t, s) : T(score(n, t, s) * cw), true);
    weights.add(i, cw, false);
  });
  const T total = w.empty() ? static_cast<T>(static_cast<float>(counted)) : weights.total();
  const T sum = loss.total();
  write_scalar(total_weight, total, self.dtype);
  write_scalar(out, reduction == LossReduction::Mean ? T(sum / total) : sum, self.dtype);
}

template <class T>
void nll_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                  const LossLayout& l, const TensorView* weight, LossReduction reduction, int64_t ignore_index,
                  const TensorView& total_weight) {
  const std::vector<T> w = weights_as<T>(weight, l.c, self.dtype);
  std::optional<ScratchTensor> hg;
  const std::vector<T> g = values_as<T>(contiguous_as(grad_output, self.dtype, hg));
  if (reduction == LossReduction::None && static_cast<int64_t>(g.size()) != l.n * l.s) {
    throw KernelError("nll_loss_backward: gradOutput must have target's shape");
  }
  if (reduction != LossReduction::None && g.size() != 1) {
    throw KernelError("nll_loss_backward: gradOutput must have one element for reduction mean or sum");
  }
  // CPU's rounding: the reduced gradient -(g / total_weight) once, then times the class weight.
  T reduced(0);
  if (reduction != LossReduction::None) {
    const T go = g[0];
    reduced = reduction == LossReduction::Mean ? T(-T(go / read_scalar<T>(total_weight, self.dtype))) : T(-go);
  }
  write_contiguous(grad_input, self.dtype, [&](const TensorView& gi) {
    T* o = gi.ptr<T>();
    std::fill(o, o + gi.numel(), T(0));
    for_each_target(l, ignore_index, [&](int64_t n, int64_t s, int64_t i, int64_t t) {
      const T base = reduction == LossReduction::None ? T(-g[i]) : reduced;
      o[(n * l.c + t) * l.s + s] = w.empty() ? base : T(w[t] * base);
    });
  });
}

template <class F>
void visit_loss_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<half>{});
    case DType::BFloat16: return f(TypeTag<bfloat16>{});
    default: throw KernelError(std::string("nll_loss: self must be a floating point tensor, got ") + model::dtype_name(d));
  }
}

}  // namespace

void nll_loss(const TensorView& out, const TensorView& total_weight, const TensorView& self, const TensorView& target,
              const TensorView* weight, LossReduction reduction, int64_t ignore_index) {
  const LossLayout l = layout_of(self, target);
  visit_loss_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_forward<T>(out, total_weight, self, l, weight, reduction, ignore_index);
  });
}

void nll_loss_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& self,
                       const TensorView& target, const TensorView* weight, LossReduction reduction,
                       int64_t ignore_index, const TensorView& total_weight) {
  const LossLayout l = layout_of(self, target);
  if (grad_input.sizes != self.sizes) throw KernelError("nll_loss_backward: out must have self's shape");
  visit_loss_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_backward<T>(grad_input, grad_output, self, l, weight, reduction, ignore_index, total_weight);
  });
}

}  // namespace npu::kernels
