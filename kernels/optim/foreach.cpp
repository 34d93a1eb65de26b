// The foreach family's kernels (see foreach.h).
#include "kernels/optim/foreach.h"

#include <atomic>
#include <cmath>

#include <tbb/parallel_for.h>

#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/elementwise.h"
#include "kernels/reduce/reduce.h"

namespace npu::kernels {

namespace {

// Runs body(i) for every tensor of a list on oneTBB workers. Each tensor's
// own loop may split further (the strided loop does for large tensors).
template <class Body>
void for_each_tensor(std::size_t n, Body&& body) {
  if (n == 1) {
    body(std::size_t{0});
    return;
  }
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { body(i); });
}

// lerp as PyTorch computes it: from the nearer end, so weight 1 gives `end`.
template <class C>
C lerp(C self, C end, C weight) {
  const C diff = end - self;
  return std::abs(weight) < C(0.5) ? self + weight * diff : end - diff * (C(1) - weight);
}

template <class T>
void run_item(ForeachFn fn, const ForeachItem& it) {
  using C = opmath_t<T>;
  const C s = static_cast<C>(it.scalar);
  auto load = [](T v) { return static_cast<C>(v); };
  auto store = [](C v) { return static_cast<T>(v); };
  switch (fn) {
    case ForeachFn::AddScalar:
      return unary_kernel<T, T>(it.out, it.a, [=](T a) { return store(load(a) + s); });
    case ForeachFn::MulScalar:
      return unary_kernel<T, T>(it.out, it.a, [=](T a) { return store(load(a) * s); });
    case ForeachFn::DivScalar:
      return unary_kernel<T, T>(it.out, it.a, [=](T a) { return store(load(a) / s); });
    case ForeachFn::Sqrt:
      return unary_kernel<T, T>(it.out, it.a, [=](T a) { return store(std::sqrt(load(a))); });
    case ForeachFn::Neg:
      return unary_kernel<T, T>(it.out, it.a, [=](T a) { return store(-load(a)); });
    case ForeachFn::LerpScalar:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) { return store(lerp(load(a), load(b), s)); });
    case ForeachFn::AddList:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) { return store(load(a) + s * load(b)); });
    case ForeachFn::SubList:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) { return store(load(a) - s * load(b)); });
    case ForeachFn::MulList:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) { return store(load(a) * load(b)); });
    case ForeachFn::DivList:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) { return store(load(a) / load(b)); });
    case ForeachFn::MaximumList:
      return binary_kernel<T, T, T>(it.out, it.a, it.b, [=](T a, T b) {
        const C x = load(a), y = load(b);
        if (std::isnan(x) || std::isnan(y)) return store(std::isnan(x) ? x : y);
        return store(x > y ? x : y);
      });
    case ForeachFn::Addcmul:
      return ternary_kernel<T, T, T, T>(
          it.out, it.a, it.b, it.c, [=](T a, T b, T c) { return store(load(a) + s * load(b) * load(c)); });
    case ForeachFn::Addcdiv:
      return ternary_kernel<T, T, T, T>(
          it.out, it.a, it.b, it.c, [=](T a, T b, T c) { return store(load(a) + s * (load(b) / load(c))); });
  }
  throw KernelError("foreach: unknown op");
}

template <class F>
void visit_floating(DType dtype, const char* what, F&& f) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) {
      f(tag);
    } else {
      throw KernelError(std::string(what) + ": unsupported dtype " + model::dtype_name(dtype) +
                        " (floating dtypes only)");
    }
  });
}

float read_float(const TensorView& t) { return *t.ptr<float>(); }

}  // namespace

void foreach_pointwise(ForeachFn fn, const std::vector<ForeachItem>& items) {
  for_each_tensor(items.size(), [&](std::size_t i) {
    const ForeachItem& it = items[i];
    if (it.out.numel() == 0) return;
    visit_floating(it.out.dtype, "foreach", [&](auto tag) { run_item<typename decltype(tag)::type>(fn, it); });
  });
}

void foreach_norm(const std::vector<TensorView>& in, const std::vector<TensorView>& out, double p) {
  if (in.size() != out.size()) throw KernelError("foreach_norm: in and out differ in length");
  for_each_tensor(in.size(), [&](std::size_t i) {
    reduce_norm(out[i], in[i], DimMask(in[i].sizes.size(), true), p);
  });
}

void foreach_non_finite_check_and_unscale(const std::vector<TensorView>& grads, const TensorView& found_inf,
                                          const TensorView& inv_scale) {
  const float inv = read_float(inv_scale);
  std::atomic<bool> any_non_finite{false};
  for_each_tensor(grads.size(), [&](std::size_t i) {
    const TensorView& g = grads[i];
    if (g.numel() == 0) return;
    visit_floating(g.dtype, "non_finite_check_and_unscale", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = opmath_t<T>;
      // Runs may be concurrent: a non-finite value is noted atomically.
      unary_kernel<T, T>(g, g, [&](T v) {
        const C x = static_cast<C>(v);
        if (!std::isfinite(x)) any_non_finite.store(true, std::memory_order_relaxed);
        return static_cast<T>(inv == 1.0f ? x : x * static_cast<C>(inv));
      });
    });
  });
  if (any_non_finite.load()) *found_inf.ptr<float>() = 1.0f;
}

void amp_update_scale(const TensorView& scale, const TensorView& growth_tracker, const TensorView& found_inf,
                      double growth_factor, double backoff_factor, int64_t growth_interval) {
  float& current = *scale.ptr<float>();
  int32_t& tracker = *growth_tracker.ptr<int32_t>();
  if (read_float(found_inf) != 0.0f) {
    current = static_cast<float>(current * backoff_factor);
    tracker = 0;
    return;
  }
  const int32_t successful = tracker + 1;
  if (successful == growth_interval) {
    const auto grown = static_cast<float>(current * growth_factor);
    if (std::isfinite(grown)) current = grown;
    tracker = 0;
  } else {
    tracker = successful;
  }
}

}  // namespace npu::kernels
