#include "kernels/factory/factories.h"

#include <cmath>

#include "kernels/copy/copy.h"
#include "kernels/core/scratch.h"
#include "kernels/pointwise/pointwise_kinds.h"
#include "kernels/pointwise/pointwise_loop.h"

namespace npu::kernels {

namespace {

// Writes out[i] = value_at(i) for every element of a 1-D `out`, in parallel.
template <class T, class F>
void generate(const TensorView& out, const F& value_at) {
  if (out.dim() != 1) throw KernelError("range factories need a 1-D output, got " + shape_str(out.sizes));
  if (!out.is_contiguous()) {
    const ScratchTensor tmp(out.dtype, out.sizes);
    generate<T>(tmp.view(), value_at);
    copy(out, tmp.view());
    return;
  }
  T* const base = out.ptr<T>();
  // In a contiguous buffer the index is the distance from the start.
  map_unary<T, T>(out, out, [base, &value_at](const T& slot) { return value_at(&slot - base); });
}

template <class F>
void visit_range_dtype(const char* op, DType dtype, F&& f) {
  visit_pointwise_dtype(op, dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kind_of<T>() == kInt || kind_of<T>() == kFloat) f(tag);
    else throw_unsupported(op, dtype);
  });
}

bool is_integral_scalar(const Scalar& s) { return s.dtype() == DType::Bool || model::is_integral(s.dtype()); }

}  // namespace

int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype) {
  const double xstart = start.to<double>(), xend = end.to<double>(), xstep = step.to<double>();
  if (!std::isfinite(xstart) || !std::isfinite(xend)) {
    throw KernelError("arange: unsupported range " + std::to_string(xstart) + " -> " + std::to_string(xend));
  }
  if (xstep == 0) throw KernelError("arange: step must be nonzero");
  if ((xstep > 0 && xend < xstart) || (xstep < 0 && xend > xstart)) {
    throw KernelError("arange: upper bound and lower bound inconsistent with step sign");
  }
  if (model::is_integral(dtype) && is_integral_scalar(start) && is_integral_scalar(end) && is_integral_scalar(step)) {
    // Exact in integers: doubles lose precision beyond 2^53.
    const int64_t s = start.to<int64_t>(), e = end.to<int64_t>(), st = step.to<int64_t>();
    const int64_t sign = st > 0 ? 1 : -1;
    return (e - s + st - sign) / st;
  }
  const double n = std::ceil((xend - xstart) / xstep);
  if (!(n >= 0 && n < 9.2e18)) throw KernelError("arange: invalid number of elements");
  return static_cast<int64_t>(n);
}

void arange(const TensorView& out, const Scalar& start, const Scalar& step) {
  visit_range_dtype("arange", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // PyTorch's CPU accumulation type.
    using Acc = std::conditional_t<kind_of<T>() == kInt, int64_t,
                                   std::conditional_t<is_reduced_float_v<T>, float, double>>;
    const Acc xstart = start.to<Acc>(), xstep = step.to<Acc>();
    generate<T>(out, [=](int64_t i) { return static_cast<T>(xstart + xstep * static_cast<Acc>(i)); });
  });
}

void linspace(const TensorView& out, const Scalar& start, const Scalar& end) {
  visit_range_dtype("linspace", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Integer ranges step in double; floating ones in T itself, rounding
    // after every operation as PyTorch's Half/BFloat16 arithmetic does.
    using Step = std::conditional_t<kind_of<T>() == kInt, double, T>;
    const int64_t steps = out.numel();
    const T xstart = start.to<T>(), xend = end.to<T>();
    if (steps == 1) {
      generate<T>(out, [=](int64_t) { return xstart; });
      return;
    }
    const Step step = (static_cast<Step>(xend) - static_cast<Step>(xstart)) / static_cast<Step>(steps - 1);
    const int64_t halfway = steps / 2;
    generate<T>(out, [=](int64_t i) {
      if (i < halfway) return static_cast<T>(static_cast<Step>(xstart) + step * static_cast<Step>(i));
      return static_cast<T>(static_cast<Step>(xend) - step * static_cast<Step>(steps - i - 1));
    });
  });
}

void eye(const TensorView& out) {
  if (out.dim() != 2) throw KernelError("eye: out must be 2-D, got " + shape_str(out.sizes));
  fill(out, Scalar::from_int(0));
  // The main diagonal is itself a strided 1-D view.
  const TensorView diagonal{out.data, out.dtype, {std::min(out.sizes[0], out.sizes[1])},
                            {out.strides[0] + out.strides[1]}};
  fill(diagonal, Scalar::from_int(1));
}

}  // namespace npu::kernels
