#include "kernels/activation/activation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

void require_floating_out(const char* op, DType d) {
  if (!model::is_floating_point(d) || model::is_complex(d)) {
    throw KernelError(std::string(op) + ": expected a real floating point output, got " + model::dtype_name(d));
  }
}

// Calls f(tag) for out's (real floating) element type.
template <class F>
void visit_floating(const char* op, DType d, F&& f) {
  require_floating_out(op, d);
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) f(tag);
  });
}

// out[i] = g(x[i]) with g working in opmath M and the result rounded once.
template <class T, class G>
void map_opmath(const TensorView& out, const TensorView& x, G g) {
  using M = opmath_t<T>;
  unary_kernel<T, T>(out, x, [g](T v) { return static_cast<T>(g(static_cast<M>(v))); });
}

template <class T>
void run(Activation fn, const ActivationParams& p, const TensorView& out, const TensorView& x) {
  using M = opmath_t<T>;
  switch (fn) {
    case Activation::Elu: {
      const M neg = p.a.to<M>() * p.b.to<M>();
      const M pos = p.b.to<M>(), in_scale = p.c.to<M>();
      map_opmath<T>(out, x, [=](M v) { return v > M(0) ? v * pos : std::expm1(v * in_scale) * neg; });
      return;
    }
    case Activation::LeakyRelu: {
      const M slope = p.a.to<M>();
      map_opmath<T>(out, x, [=](M v) { return v > M(0) ? v : v * slope; });
      return;
    }
    case Activation::Hardsigmoid:
      map_opmath<T>(out, x, [](M v) { return std::min(std::max(v + M(3), M(0)), M(6)) / M(6); });
      return;
    case Activation::Hardswish:
      map_opmath<T>(out, x, [](M v) { return v * std::min(std::max(v + M(3), M(0)), M(6)) / M(6); });
      return;
    case Activation::Hardtanh: {
      // clamp's rule: the bounds are rounded to the element type first.
      const M lo = static_cast<M>(p.a.to<T>()), hi = static_cast<M>(p.b.to<T>());
      map_opmath<T>(out, x, [=](M v) { return std::isnan(v) ? v : std::min(std::max(v, lo), hi); });
      return;
    }
    case Activation::Softplus: {
      const M beta = p.a.to<M>(), threshold = p.b.to<M>();
      map_opmath<T>(out, x, [=](M v) { return v * beta > threshold ? v : std::log1p(std::exp(v * beta)) / beta; });
      return;
    }
    case Activation::Mish:
      map_opmath<T>(out, x, [](M v) { return v * std::tanh(std::log1p(std::exp(v))); });
      return;
    case Activation::Hardshrink: {
      const M lambd = p.a.to<M>();
      map_opmath<T>(out, x, [=](M v) { return v >= -lambd && v <= lambd ? M(0) : v; });
      return;
    }
    case Activation::Softshrink: {
      const M lambd = p.a.to<M>();
      // v * 0 keeps a NaN input NaN.
      map_opmath<T>(out, x, [=](M v) { return v > lambd ? v - lambd : (v < -lambd ? v + lambd : v * M(0)); });
      return;
    }
    case Activation::Logit: {
      // CPU computes logit in the element type op by op: 1 - x, the ratio
      // and the log are each rounded to T (float16/bfloat16 too), and the
      // clamp bounds are eps and 1 - eps rounded to T.
      const bool clamp = p.a.to<double>() >= 0.0;
      const T lo = p.a.to<T>();
      const T hi = static_cast<T>(M(1) - static_cast<M>(lo));
      unary_kernel<T, T>(out, x, [=](T t) {
        M v = static_cast<M>(t);
        if (clamp) v = v < static_cast<M>(lo) ? static_cast<M>(lo) : (v > static_cast<M>(hi) ? static_cast<M>(hi) : v);
        if (v == M(1)) return static_cast<T>(std::numeric_limits<M>::infinity());
        const M one_minus = static_cast<M>(static_cast<T>(M(1) - v));
        const M ratio = static_cast<M>(static_cast<T>(v / one_minus));
        return static_cast<T>(std::log(ratio));
      });
      return;
    }
  }
}

}  // namespace

void activation(Activation fn, const ActivationParams& params, const TensorView& out, const TensorView& self) {
  std::optional<ScratchTensor> hs;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  visit_floating("activation", out.dtype, [&](auto tag) { run<typename decltype(tag)::type>(fn, params, out, x); });
}

void log_sigmoid_forward(const TensorView& out, const TensorView& buffer, const TensorView& self) {
  std::optional<ScratchTensor> hs;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  if (buffer.dtype != out.dtype || buffer.sizes != out.sizes) {
    throw KernelError("log_sigmoid_forward: buffer must have out's dtype and shape");
  }
  visit_floating("log_sigmoid_forward", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    // Two passes keep each on the shared elementwise engine; the exp is cheap.
    map_opmath<T>(buffer, x, [](M v) { return std::exp(-std::abs(v)); });
    map_opmath<T>(out, x, [](M v) { return std::min(v, M(0)) - std::log1p(std::exp(-std::abs(v))); });
  });
}

void rrelu_with_noise(const TensorView& out, const TensorView& noise, const TensorView& self, double lower,
                      double upper, bool training, PhiloxInputs rng) {
  std::optional<ScratchTensor> hs;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  if (!training) {
    ActivationParams p;
    p.a = Scalar::from_double((lower + upper) / 2);
    activation(Activation::LeakyRelu, p, out, self);
    return;
  }
  if (noise.dtype != out.dtype || noise.sizes != out.sizes) {
    throw KernelError("rrelu_with_noise: noise must have out's dtype and shape");
  }
  // Every element's slope is drawn (4 counter words each, as the contract
  // says), in double as CPU draws it; out multiplies in opmath.
  const ScratchTensor slopes(DType::Float64, out.sizes);
  uniform(slopes.view(), lower, upper, rng);
  visit_floating("rrelu_with_noise", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    binary_kernel<T, T, double>(noise, x, slopes.view(), [](T v, double r) {
      return static_cast<M>(v) <= M(0) ? static_cast<T>(r) : T(1);
    });
    binary_kernel<T, T, double>(out, x, slopes.view(), [](T v, double r) {
      return static_cast<M>(v) <= M(0) ? static_cast<T>(static_cast<M>(v) * static_cast<M>(r)) : v;
    });
  });
}

Halves split_halves(const TensorView& t, int64_t dim) {
  if (dim < 0 || dim >= t.dim()) throw KernelError("glu: dim out of range");
  const int64_t n = t.sizes[static_cast<std::size_t>(dim)];
  if (n % 2 != 0) throw KernelError("glu: halving dimension must be even, but dimension " + std::to_string(dim) +
                                    " is size " + std::to_string(n));
  Halves h{t, t};
  h.first.sizes[static_cast<std::size_t>(dim)] = n / 2;
  h.second.sizes[static_cast<std::size_t>(dim)] = n / 2;
  h.second.data = static_cast<char*>(t.data) +
                  (n / 2) * t.strides[static_cast<std::size_t>(dim)] * static_cast<int64_t>(t.itemsize());
  return h;
}

void glu(const TensorView& out, const TensorView& self, int64_t dim) {
  std::optional<ScratchTensor> hs;
  const Halves h = split_halves(input_as(self, out.dtype, hs), dim);
  if (h.first.sizes != out.sizes) throw KernelError("glu: out must have self's shape with dim halved");
  visit_floating("glu", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    binary_kernel<T, T, T>(out, h.first, h.second, [](T a, T b) {
      return static_cast<T>(static_cast<M>(a) * (M(1) / (M(1) + std::exp(-static_cast<M>(b)))));
    });
  });
}

void prelu(const TensorView& out, const TensorView& self, const TensorView& weight) {
  std::optional<ScratchTensor> hs, hw;
  const TensorView x = broadcast_to(input_as(self, out.dtype, hs), out.sizes);
  const TensorView w = broadcast_to(input_as(weight, out.dtype, hw), out.sizes);
  visit_floating("prelu", out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    binary_kernel<T, T, T>(out, x, w, [](T a, T b) {
      const M v = static_cast<M>(a);
      return static_cast<T>(v > M(0) ? v : static_cast<M>(b) * v);
    });
  });
}

}  // namespace npu::kernels
