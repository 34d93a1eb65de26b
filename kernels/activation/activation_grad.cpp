#include "kernels/activation/activation_grad.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

// out[i] = f(g[i], v[i]) with f working in opmath M and rounded once.
template <class T, class F>
void map2(const TensorView& out, const TensorView& g, const TensorView& v, F f) {
  using M = opmath_t<T>;
  binary_kernel<T, T, T>(out, g, v, [f](T a, T b) { return static_cast<T>(f(static_cast<M>(a), static_cast<M>(b))); });
}

template <class T>
void run(ActivationGrad fn, const TensorView& out, const TensorView& g, const TensorView& v,
         const ActivationParams& p) {
  using M = opmath_t<T>;
  switch (fn) {
    case ActivationGrad::Elu:
    case ActivationGrad::EluResult: {
      const M neg = p.a.to<M>() * p.b.to<M>(), pos = p.b.to<M>(), in_scale = p.c.to<M>();
      if (fn == ActivationGrad::EluResult) {
        map2<T>(out, g, v, [=](M a, M y) { return y <= M(0) ? a * in_scale * (y + neg) : a * pos; });
      } else {
        map2<T>(out, g, v, [=](M a, M x) { return x <= M(0) ? a * in_scale * neg * std::exp(x * in_scale) : a * pos; });
      }
      return;
    }
    case ActivationGrad::LeakyRelu: {
      const M slope = p.a.to<M>();
      map2<T>(out, g, v, [=](M a, M x) { return x > M(0) ? a : a * slope; });
      return;
    }
    case ActivationGrad::Hardsigmoid:
      map2<T>(out, g, v, [](M a, M x) { return x > M(-3) && x < M(3) ? a * (M(1) / M(6)) : M(0); });
      return;
    case ActivationGrad::Hardswish:
      map2<T>(out, g, v, [](M a, M x) {
        // CPU's convention at the kinks: 0 at -3, gradOutput at 3.
        if (x <= M(-3)) return M(0);
        return x < M(3) ? a * (x / M(3) + M(0.5)) : a;
      });
      return;
    case ActivationGrad::Hardtanh: {
      const M lo = static_cast<M>(p.a.to<T>()), hi = static_cast<M>(p.b.to<T>());
      map2<T>(out, g, v, [=](M a, M x) { return x <= lo || x >= hi ? M(0) : a; });
      return;
    }
    case ActivationGrad::Softplus: {
      const M beta = p.a.to<M>(), threshold = p.b.to<M>();
      map2<T>(out, g, v, [=](M a, M x) {
        const M z = std::exp(x * beta);
        return x * beta > threshold ? a : a * z / (z + M(1));
      });
      return;
    }
    case ActivationGrad::Mish:
      map2<T>(out, g, v, [](M a, M x) {
        const M s = M(1) / (M(1) + std::exp(-x));
        const M t = std::tanh(std::log1p(std::exp(x)));
        return a * (t + x * s * (M(1) - t * t));
      });
      return;
    case ActivationGrad::Shrink: {
      const M lambd = p.a.to<M>();
      map2<T>(out, g, v, [=](M a, M x) { return x >= -lambd && x <= lambd ? M(0) : a; });
      return;
    }
    case ActivationGrad::Logit: {
      const double eps = p.a.to<double>();
      const M lo = static_cast<M>(eps), hi = static_cast<M>(1.0 - eps);
      if (eps < 0.0) {
        map2<T>(out, g, v, [](M a, M x) {
          return x < M(0) || x > M(1) ? std::numeric_limits<M>::quiet_NaN() : a / (x * (M(1) - x));
        });
      } else {
        map2<T>(out, g, v, [=](M a, M x) { return x < lo || x > hi ? M(0) : a / (x * (M(1) - x)); });
      }
      return;
    }
    case ActivationGrad::Sigmoid:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M y = static_cast<M>(b);
        return static_cast<T>(static_cast<M>(a) * (M(1) - y) * y);
      });
      return;
    case ActivationGrad::Tanh:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M y = static_cast<M>(b);
        return static_cast<T>(static_cast<M>(a) * (M(1) - y * y));
      });
      return;
    case ActivationGrad::Gelu:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M cdf = M(0.5) * (M(1) + std::erf(x * M(M_SQRT1_2)));
        const M pdf = M(M_2_SQRTPI * M_SQRT1_2 * 0.5) * std::exp(x * x * M(-0.5));
        return static_cast<T>(static_cast<M>(a) * (cdf + x * pdf));
      });
      return;
    case ActivationGrad::GeluTanh:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M k = M(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
        const M c = M(0.044715);
        const M t = std::tanh(k * (x + c * x * x * x));
        const M d = M(0.5) * (M(1) + t) + M(0.5) * x * (M(1) - t * t) * k * (M(1) + M(3) * c * x * x);
        return static_cast<T>(static_cast<M>(a) * d);
      });
      return;
    case ActivationGrad::Silu:
      binary_kernel<T, T, T>(out, g, v, [](T a, T b) {
        const M x = static_cast<M>(b);
        const M s = M(1) / (M(1) + std::exp(-x));
        return static_cast<T>(static_cast<M>(a) * s * (M(1) + x * (M(1) - s)));
      });
      return;
  }
}

}  // namespace

void activation_grad(ActivationGrad fn, const TensorView& out, const TensorView& grad_output,
                     const TensorView& operand, const ActivationParams& params) {
  if (!model::is_floating_point(out.dtype) || model::is_complex(out.dtype)) {
    throw KernelError(std::string("activation backward: expected a real floating point output, got ") +
                      model::dtype_name(out.dtype));
  }
  std::optional<ScratchTensor> hg, hv;
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), out.sizes);
  const TensorView v = broadcast_to(input_as(operand, out.dtype, hv), out.sizes);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) run<T>(fn, out, g, v, params);
  });
}

namespace {

// Calls f(tag) for out's (real floating) element type.
template <class F>
void visit_floating_out(const char* op, DType d, F&& f) {
  if (!model::is_floating_point(d) || model::is_complex(d)) {
    throw KernelError(std::string(op) + ": expected a real floating point output, got " + model::dtype_name(d));
  }
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) f(tag);
  });
}

}  // namespace

void log_sigmoid_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self,
                          const TensorView& buffer) {
  std::optional<ScratchTensor> hg, hx, hb;
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), out.sizes);
  const TensorView x = broadcast_to(input_as(self, out.dtype, hx), out.sizes);
  const TensorView z = broadcast_to(input_as(buffer, out.dtype, hb), out.sizes);
  visit_floating_out("log_sigmoid_backward", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    ternary_kernel<T, T, T, T>(out, x, z, g, [](T xv, T zv, T gv) {
      const bool negative = static_cast<M>(xv) < M(0);
      const M zm = static_cast<M>(zv);
      const M d = (negative ? M(1) : M(0)) - (negative ? M(1) : M(-1)) * (zm / (M(1) + zm));
      return static_cast<T>(d * static_cast<M>(gv));
    });
  });
}

void glu_backward(const TensorView& out, const TensorView& grad_output, const TensorView& self, int64_t dim) {
  std::optional<ScratchTensor> hg, hx;
  const Halves x = split_halves(input_as(self, out.dtype, hx), dim);
  const Halves o = split_halves(out, dim);
  const TensorView g = broadcast_to(input_as(grad_output, out.dtype, hg), o.first.sizes);
  visit_floating_out("glu_backward", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const auto sig = [](T b) { return M(1) / (M(1) + std::exp(-static_cast<M>(b))); };
    binary_kernel<T, T, T>(o.first, g, x.second, [sig](T gv, T b) { return static_cast<T>(static_cast<M>(gv) * sig(b)); });
    ternary_kernel<T, T, T, T>(o.second, g, x.first, x.second, [sig](T gv, T a, T b) {
      const M s = sig(b);
      return static_cast<T>(static_cast<M>(gv) * static_cast<M>(a) * s * (M(1) - s));
    });
  });
}

void prelu_backward(const TensorView& grad_input, const TensorView& grad_weight, const TensorView& grad_output,
                    const TensorView& self, const TensorView& weight) {
  if (grad_weight.sizes != grad_input.sizes || grad_weight.dtype != grad_input.dtype) {
    throw KernelError("prelu_backward: gradWeight must have gradInput's shape and dtype");
  }
  std::optional<ScratchTensor> hg, hx, hw;
  const Shape& shape = grad_input.sizes;
  const TensorView g = broadcast_to(input_as(grad_output, grad_input.dtype, hg), shape);
  const TensorView x = broadcast_to(input_as(self, grad_input.dtype, hx), shape);
  const TensorView w = broadcast_to(input_as(weight, grad_input.dtype, hw), shape);
  visit_floating_out("prelu_backward", grad_input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    ternary_kernel<T, T, T, T>(grad_input, x, w, g, [](T xv, T wv, T gv) {
      return static_cast<M>(xv) > M(0) ? gv : static_cast<T>(static_cast<M>(wv) * static_cast<M>(gv));
    });
    binary_kernel<T, T, T>(grad_weight, x, g, [](T xv, T gv) {
      return static_cast<M>(xv) > M(0) ? T(0) : static_cast<T>(static_cast<M>(xv) * static_cast<M>(gv));
    });
  });
}

}  // namespace npu::kernels
