#include "kernels/random/random_ops.h"

#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>

#include "kernels/copy/copy.h"
#include "kernels/core/elementwise.h"
#include "kernels/random/philox.h"

namespace npu::kernels {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

uint64_t word64(const PhiloxBlock& b) { return static_cast<uint64_t>(b[0]) << 32 | b[1]; }

// Fills `out` with value(block of element i, i) for every element i in
// row-major logical order, in parallel. Non-contiguous outputs are generated
// densely first, so the values never depend on the strides.
template <class T, class Value>
void generate(const TensorView& out, PhiloxInputs rng, Value value) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const bool direct = out.is_contiguous();
  std::unique_ptr<T[]> scratch;
  T* dst = out.ptr<T>();
  if (!direct) {
    scratch = std::make_unique<T[]>(n);
    dst = scratch.get();
  }
  const uint64_t first_block = rng.offset / 4;
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = value(philox4x32_10(rng.seed, first_block + static_cast<uint64_t>(i)), i);
    }
  };
  if (n < kParallelGrain) {
    body(0, n);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, kParallelGrain / 4),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  }
  if (!direct) copy(out, TensorView{scratch.get(), out.dtype, out.sizes, contiguous_strides(out.sizes)});
}

template <class F>
void visit_floating(const TensorView& out, const char* op, F&& f) {
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) {
      f(tag);
    } else {
      throw KernelError(std::string(op) + ": expects a floating point output, got " + model::dtype_name(out.dtype));
    }
  });
}

template <class F>
void visit_real(const TensorView& out, const char* op, F&& f) {
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) {
      f(tag);
    } else {
      throw KernelError(std::string(op) + ": does not support complex outputs");
    }
  });
}

// A real value of any type from a double, exactly as a cast would do it.
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else {
    return convert<T>(v);
  }
}

}  // namespace

void uniform(const TensorView& out, double from, double to, PhiloxInputs rng) {
  if (!(from <= to)) throw KernelError("uniform_: expects from <= to, got from=" + std::to_string(from) + " to=" + std::to_string(to));
  visit_floating(out, "uniform_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const double range = to - from;
    generate<T>(out, rng, [&](const PhiloxBlock& b, int64_t) {
      double v;
      if constexpr (std::is_same_v<T, double>) {
        v = from + uniform_double(b[0], b[1]) * range;
      } else {
        v = static_cast<double>(static_cast<float>(from) + uniform_float(b[0]) * static_cast<float>(range));
      }
      const T r = convert<T>(v);
      // Rounding to a narrow type may reach `to`, which the interval excludes.
      return (range > 0 && convert<double>(r) >= to) ? convert<T>(from) : r;
    });
  });
}

void normal(const TensorView& out, double mean, double std, PhiloxInputs rng) {
  if (!(std >= 0.0)) throw KernelError("normal_: expects std >= 0.0, got std=" + std::to_string(std));
  visit_floating(out, "normal_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    generate<T>(out, rng, [&](const PhiloxBlock& b, int64_t) {
      double z;
      if constexpr (std::is_same_v<T, double>) {
        const double u1 = 1.0 - uniform_double(b[0], b[1]);  // (0, 1]: the log stays finite
        const double u2 = uniform_double(b[2], b[3]);
        z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
      } else {
        const float u1 = 1.0f - uniform_float(b[0]);
        const float u2 = uniform_float(b[1]);
        z = static_cast<double>(std::sqrt(-2.0f * std::log(u1)) * std::cos(static_cast<float>(kTwoPi) * u2));
      }
      return convert<T>(mean + std * z);
    });
  });
}

void random_integers(const TensorView& out, int64_t from, uint64_t range, PhiloxInputs rng) {
  if (range == 0) throw KernelError("random_: the range [from, to) is empty");
  visit_real(out, "random_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    generate<T>(out, rng, [&](const PhiloxBlock& b, int64_t) {
      // Two's complement wrap-around keeps from + offset exact for any from.
      const auto v = static_cast<int64_t>(static_cast<uint64_t>(from) + word64(b) % range);
      if constexpr (is_floating_v<T>) {
        return convert<T>(static_cast<double>(v));
      } else if constexpr (std::is_same_v<T, bool>) {
        return v != 0;
      } else {
        return static_cast<T>(v);
      }
    });
  });
}

uint64_t full_random_range(model::DType dtype) {
  using model::DType;
  constexpr auto bits = [](int n) { return (uint64_t{1} << n) + 1; };  // [0, 2^n], n significand bits
  switch (dtype) {
    case DType::Bool: return 2;
    case DType::BFloat16: return bits(8);
    case DType::Float16: return bits(11);
    case DType::Float32: return bits(std::numeric_limits<float>::digits);
    case DType::Float64: return bits(std::numeric_limits<double>::digits);
    case DType::UInt8: return uint64_t{std::numeric_limits<uint8_t>::max()} + 1;
    case DType::Int8: return uint64_t{std::numeric_limits<int8_t>::max()} + 1;
    case DType::Int16: return uint64_t{std::numeric_limits<int16_t>::max()} + 1;
    case DType::UInt16: return uint64_t{std::numeric_limits<uint16_t>::max()} + 1;
    case DType::Int32: return uint64_t{std::numeric_limits<int32_t>::max()} + 1;
    case DType::UInt32: return uint64_t{std::numeric_limits<uint32_t>::max()} + 1;
    case DType::Int64:
    case DType::UInt64: return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    default: throw KernelError(std::string("random_: unsupported dtype ") + model::dtype_name(dtype));
  }
}

void bernoulli(const TensorView& out, double p, PhiloxInputs rng) {
  if (!(p >= 0.0 && p <= 1.0)) throw KernelError("bernoulli_: expects 0 <= p <= 1, got p=" + std::to_string(p));
  visit_real(out, "bernoulli_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    generate<T>(out, rng,
                [&](const PhiloxBlock& b, int64_t) { return from_double<T>(uniform_double(b[0], b[1]) < p ? 1.0 : 0.0); });
  });
}

void bernoulli(const TensorView& out, const TensorView& p, PhiloxInputs rng) {
  // The probabilities, as doubles in the output's logical order.
  const int64_t n = out.numel();
  auto probs = std::make_unique<double[]>(std::max<int64_t>(n, 1));
  const TensorView dense{probs.get(), DType::Float64, out.sizes, contiguous_strides(out.sizes)};
  copy(dense, broadcast_to(p, out.sizes));
  for (int64_t i = 0; i < n; ++i) {
    if (!(probs[i] >= 0.0 && probs[i] <= 1.0)) {
      throw KernelError("bernoulli_: expects all elements of p in [0, 1], got " + std::to_string(probs[i]));
    }
  }
  visit_real(out, "bernoulli_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    generate<T>(out, rng, [&](const PhiloxBlock& b, int64_t i) {
      return from_double<T>(uniform_double(b[0], b[1]) < probs[i] ? 1.0 : 0.0);
    });
  });
}

void exponential(const TensorView& out, double lambd, PhiloxInputs rng) {
  if (!(lambd > 0.0)) throw KernelError("exponential_: expects lambda > 0.0, got lambda=" + std::to_string(lambd));
  visit_floating(out, "exponential_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    generate<T>(out, rng,
                [&](const PhiloxBlock& b, int64_t) { return convert<T>(-std::log1p(-uniform_double(b[0], b[1])) / lambd); });
  });
}

void randperm(const TensorView& out, PhiloxInputs rng) {
  if (out.dim() != 1) throw KernelError("randperm: the output must be 1-D, got " + shape_str(out.sizes));
  const int64_t n = out.sizes[0];
  if (n == 0) return;
  auto perm = std::make_unique<int64_t[]>(n);
  std::iota(perm.get(), perm.get() + n, int64_t{0});
  // Fisher-Yates from the back; step i swaps with a uniform j in [0, i].
  const uint64_t first_block = rng.offset / 4;
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t j = word64(philox4x32_10(rng.seed, first_block + static_cast<uint64_t>(i))) % static_cast<uint64_t>(i + 1);
    std::swap(perm[i], perm[static_cast<int64_t>(j)]);
  }
  copy(out, TensorView{perm.get(), DType::Int64, out.sizes, contiguous_strides(out.sizes)});
}

void dropout(const TensorView& out, const TensorView& mask, const TensorView& self, double p, PhiloxInputs rng) {
  if (!(p >= 0.0 && p <= 1.0)) throw KernelError("dropout: expects 0 <= p <= 1, got p=" + std::to_string(p));
  if (mask.dtype != DType::Bool) throw KernelError("dropout: the mask must be bool");
  if (out.sizes != self.sizes || mask.sizes != self.sizes || out.dtype != self.dtype) {
    throw KernelError("dropout: out, mask and self must share self's shape, and out self's dtype");
  }
  generate<bool>(mask, rng, [&](const PhiloxBlock& b, int64_t) { return uniform_double(b[0], b[1]) >= p; });
  visit_floating(out, "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M scale = p < 1.0 ? static_cast<M>(1.0 / (1.0 - p)) : M(0);
    binary_kernel<T, T, bool>(out, self, mask, [scale](const T& x, bool keep) { return keep ? T(M(x) * scale) : T(0); });
  });
}

}  // namespace npu::kernels
