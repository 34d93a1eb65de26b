// The fused optimizer kernels (see fused_optim.h). Parameters are spread over
// oneTBB workers, each walked with its state by the strided loop.
#include "kernels/optim/fused_optim.h"

#include <cmath>

#include <tbb/parallel_for.h>

#include <Eigen/Core>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/strided_loop.h"

namespace npu::kernels {

namespace {

// Calls body(p, i) for every element i of the item's tensors (param, grad,
// and the states that are set), p[k] pointing at tensor k's element.
template <class T, std::size_t N, class Body>
void walk(const std::array<const TensorView*, N>& views, Body&& body) {
  const auto ops = make_operands<N>(views);
  strided_loop<N>(ops, [&](const std::array<char*, N>& p, const std::array<int64_t, N>& s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      std::array<T*, N> e{};
      for (std::size_t k = 0; k < N; ++k) e[k] = reinterpret_cast<T*>(p[k] + i * s[k]);
      body(e);
    }
  });
}

template <class F>
void for_each_item(const std::vector<OptimItem>& items, const char* what, F&& f) {
  tbb::parallel_for(std::size_t{0}, items.size(), [&](std::size_t i) {
    const OptimItem& it = items[i];
    if (it.param.numel() == 0) return;
    visit_dtype(it.param.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_floating_v<T>) {
        f(tag, it);
      } else {
        throw KernelError(std::string(what) + ": unsupported dtype " + model::dtype_name(it.param.dtype) +
                          " (floating dtypes only)");
      }
    });
  });
}

// The gradient as the update uses it: unscaled (and stored back), negated to maximize.
template <class T, class C>
C prepared_grad(T* grad, std::optional<float> grad_scale, bool maximize) {
  C g = static_cast<C>(*grad);
  if (grad_scale) {
    g = g / static_cast<C>(*grad_scale);
    *grad = static_cast<T>(g);
  }
  return maximize ? -g : g;
}

// Adam's per-parameter constants, in the compute type.
template <class C>
struct AdamConsts {
  C lr, wd, beta2, step_size, bc2_sqrt, eps, w;  // w = 1 - beta1, lerp's weight
};

// Contiguous tensors: the element update below on Eigen arrays, a chunk at a
// time, so the arithmetic runs as SIMD instructions. IEEE operations round
// exactly as the scalar ones and keep their order, so both paths give the
// same bits.
template <class T, class C>
void adam_contiguous(const OptimItem& it, const AdamConsts<C>& k, const AdamConfig& cfg,
                     std::optional<float> grad_scale) {
  constexpr int64_t kChunk = 1024;
  using Array = Eigen::Array<C, Eigen::Dynamic, 1, 0, kChunk, 1>;
  using Map = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
  const int64_t n = it.param.numel();
  parallel_range((n + kChunk - 1) / kChunk, grain_for(kChunk * 8), [&](int64_t begin, int64_t end) {
    for (int64_t chunk = begin; chunk < end; ++chunk) {
      const int64_t off = chunk * kChunk, len = std::min(kChunk, n - off);
      Map param(it.param.ptr<T>() + off, len), grad(it.grad.ptr<T>() + off, len);
      Map exp_avg(it.state1.ptr<T>() + off, len), exp_avg_sq(it.state2.ptr<T>() + off, len);
      Array g = grad.template cast<C>();
      if (grad_scale) {
        g = g / static_cast<C>(*grad_scale);
        grad = g.template cast<T>();
      }
      if (cfg.maximize) g = -g;
      Array p = param.template cast<C>();
      if (cfg.weight_decay != 0) {
        if (cfg.decoupled_weight_decay) {
          p = p * (C(1) - k.lr * k.wd);
        } else {
          g = g + p * k.wd;
        }
      }
      const Array m0 = exp_avg.template cast<C>();
      Array m;
      if (std::abs(k.w) < C(0.5)) {
        m = m0 + k.w * (g - m0);
      } else {
        m = g - (g - m0) * (C(1) - k.w);
      }
      exp_avg = m.template cast<T>();
      Array v = exp_avg_sq.template cast<C>() * k.beta2 + (C(1) - k.beta2) * g * g;
      exp_avg_sq = v.template cast<T>();
      if (cfg.amsgrad) {
        Map max_exp_avg_sq(it.state3.ptr<T>() + off, len);
        const Array prev = max_exp_avg_sq.template cast<C>();
        v = (prev < v).select(v, prev);
        max_exp_avg_sq = v.template cast<T>();
      }
      // std::sqrt, not Eigen's packet sqrt: under EIGEN_FAST_MATH (Eigen's
      // default) that one is an approximation for float, not exactly rounded.
      const Array root = v.unaryExpr([](C x) { return std::sqrt(x); });
      param = (p - k.step_size * m / (root / k.bc2_sqrt + k.eps)).template cast<T>();
    }
  });
}

}  // namespace

void fused_adam(const std::vector<OptimItem>& items, const AdamConfig& cfg, std::optional<float> grad_scale) {
  for_each_item(items, "fused_adam", [&](auto tag, const OptimItem& it) {
    using T = typename decltype(tag)::type;
    using C = opmath_t<T>;
    const double bias_correction1 = 1 - std::pow(cfg.beta1, it.step);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(cfg.beta2, it.step));
    const AdamConsts<C> k{static_cast<C>(cfg.lr),
                          static_cast<C>(cfg.weight_decay),
                          static_cast<C>(cfg.beta2),
                          static_cast<C>(cfg.lr / bias_correction1),
                          static_cast<C>(bias_correction2_sqrt),
                          static_cast<C>(cfg.eps),
                          C(1) - static_cast<C>(cfg.beta1)};
    const bool contiguous = it.param.is_contiguous() && it.grad.is_contiguous() && it.state1.is_contiguous() &&
                            it.state2.is_contiguous() && (!cfg.amsgrad || it.state3.is_contiguous());
    if (contiguous) {
      adam_contiguous<T, C>(it, k, cfg, grad_scale);
      return;
    }
    auto update = [&](T* param, T* grad, T* exp_avg, T* exp_avg_sq, T* max_exp_avg_sq) {
      C g = prepared_grad<T, C>(grad, grad_scale, cfg.maximize);
      C p = static_cast<C>(*param);
      if (cfg.weight_decay != 0) {
        if (cfg.decoupled_weight_decay) {
          p = p * (C(1) - k.lr * k.wd);
        } else {
          g = g + p * k.wd;
        }
      }
      // exp_avg.lerp_(grad, 1 - beta1), from the nearer end as lerp does.
      const C m0 = static_cast<C>(*exp_avg);
      const C m = std::abs(k.w) < C(0.5) ? m0 + k.w * (g - m0) : g - (g - m0) * (C(1) - k.w);
      *exp_avg = static_cast<T>(m);
      C v = static_cast<C>(*exp_avg_sq) * k.beta2 + (C(1) - k.beta2) * g * g;
      *exp_avg_sq = static_cast<T>(v);
      if (max_exp_avg_sq != nullptr) {
        const C prev = static_cast<C>(*max_exp_avg_sq);
        v = prev < v ? v : prev;  // std::max's order, as PyTorch's kernel
        *max_exp_avg_sq = static_cast<T>(v);
      }
      const C denom = std::sqrt(v) / k.bc2_sqrt + k.eps;
      *param = static_cast<T>(p - k.step_size * m / denom);
    };
    if (cfg.amsgrad) {
      walk<T, 5>({&it.param, &it.grad, &it.state1, &it.state2, &it.state3},
                 [&](const std::array<T*, 5>& e) { update(e[0], e[1], e[2], e[3], e[4]); });
    } else {
      walk<T, 4>({&it.param, &it.grad, &it.state1, &it.state2},
                 [&](const std::array<T*, 4>& e) { update(e[0], e[1], e[2], e[3], nullptr); });
    }
  });
}

void fused_sgd(const std::vector<OptimItem>& items, const SgdConfig& cfg, std::optional<float> grad_scale) {
  for_each_item(items, "fused_sgd", [&](auto tag, const OptimItem& it) {
    using T = typename decltype(tag)::type;
    using C = opmath_t<T>;
    const C lr = static_cast<C>(cfg.lr), wd = static_cast<C>(cfg.weight_decay);
    const C momentum = static_cast<C>(cfg.momentum), dampening = static_cast<C>(cfg.dampening);
    auto update = [&](T* param, T* grad, T* buf) {
      C g = prepared_grad<T, C>(grad, grad_scale, cfg.maximize);
      const C p = static_cast<C>(*param);
      if (cfg.weight_decay != 0) g += p * wd;
      if (buf != nullptr) {
        const C b = cfg.is_first_step ? g : static_cast<C>(*buf) * momentum + (C(1) - dampening) * g;
        *buf = static_cast<T>(b);
        g = cfg.nesterov ? g + momentum * b : b;
      }
      *param = static_cast<T>(p - lr * g);
    };
    if (cfg.momentum != 0) {
      walk<T, 3>({&it.param, &it.grad, &it.state1}, [&](const std::array<T*, 3>& e) { update(e[0], e[1], e[2]); });
    } else {
      walk<T, 2>({&it.param, &it.grad}, [&](const std::array<T*, 2>& e) { update(e[0], e[1], nullptr); });
    }
  });
}

void fused_adagrad(const std::vector<OptimItem>& items, const AdagradConfig& cfg, std::optional<float> grad_scale) {
  for_each_item(items, "fused_adagrad", [&](auto tag, const OptimItem& it) {
    using T = typename decltype(tag)::type;
    using C = opmath_t<T>;
    const C clr = static_cast<C>(cfg.lr / (1 + (it.step - 1) * cfg.lr_decay));
    const C wd = static_cast<C>(cfg.weight_decay), eps = static_cast<C>(cfg.eps);
    walk<T, 3>({&it.param, &it.grad, &it.state1}, [&](const std::array<T*, 3>& e) {
      C g = prepared_grad<T, C>(e[1], grad_scale, cfg.maximize);
      const C p = static_cast<C>(*e[0]);
      if (cfg.weight_decay != 0) g += p * wd;
      const C sum = static_cast<C>(*e[2]) + g * g;
      *e[2] = static_cast<T>(sum);
      *e[0] = static_cast<T>(p - clr * g / (std::sqrt(sum) + eps));
    });
  });
}

}  // namespace npu::kernels
