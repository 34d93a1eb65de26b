// Accumulator ops the reduction engine folds with. An op defines
//   in_t, acc_t; identity(); step(acc, value, position); merge(earlier, later);
//   fold_run(acc, ptr, stride, n, position) for a strided run of n values.
// Ops that track positions (arg-max/min) break ties by position in merge, so
// results do not depend on how the engine splits the work.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/pointwise/pointwise_math.h"
#include "kernels/reduce/widen.h"

namespace npu::kernels {

template <class T>
inline bool is_nan_value(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// fold_run for ops whose step is cheap: a contiguous run is folded in
// independent lanes (so the compiler can vectorize), then the lanes merge.
template <class D, class In, class Acc>
struct LaneFold {
  using in_t = In;
  using acc_t = Acc;
  Acc fold_run(Acc a, const In* p, int64_t stride, int64_t n, int64_t pos) const {
    const D& d = static_cast<const D&>(*this);
    constexpr int64_t kLanes = 8;
    if (stride == 1 && n >= 2 * kLanes) {
      std::array<Acc, kLanes> lane;
      lane.fill(d.identity());
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        for (int64_t l = 0; l < kLanes; ++l) lane[l] = d.step(lane[l], p[i + l], pos + i + l);
      }
      for (int64_t l = 0; l < kLanes; ++l) a = d.merge(a, lane[l]);
      for (; i < n; ++i) a = d.step(a, p[i], pos + i);
      return a;
    }
    for (int64_t i = 0; i < n; ++i) a = d.step(a, p[i * stride], pos + i);
    return a;
  }
};

// Sums carry floats in a double accumulator (contiguous float / half /
// bfloat16 runs first add short float-lane partial sums, see SumOp) and
// integers in 64 bits: results are at least as accurate as PyTorch's cascade
// sums, and integer wrap-around modulo the output width is unchanged.
template <class T>
using sum_acc_t = std::conditional_t<
    is_complex_v<T>, complex128,
    std::conditional_t<is_floating_v<T>, double, std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>>>;

template <class In>
struct SumOp : LaneFold<SumOp<In>, In, sum_acc_t<In>> {
  using Acc = sum_acc_t<In>;
  Acc identity() const { return Acc(0); }
  // Integer sums wrap in two's complement as PyTorch's do (through the
  // unsigned type: signed overflow is undefined in C++, UBSan reports it).
  Acc step(Acc a, const In& v, int64_t) const { return pwmath::wrap_add(a, widen<Acc>(v)); }
  Acc merge(Acc a, Acc b) const { return pwmath::wrap_add(a, b); }

  // Contiguous float / half / bfloat16 runs: vector float lanes over blocks
  // of 1024 elements, each block's sum added in double. Per-lane float sums
  // stay short, so accuracy stays at PyTorch's cascade-sum level.
  Acc fold_run(Acc a, const In* p, int64_t stride, int64_t n, int64_t pos) const {
#ifdef NPU_EMU_HAVE_F16C_PATH
    if constexpr (std::is_same_v<In, half>) {
      if (stride == 1 && n >= 64 && cpu_has_f16c()) {
        int64_t done = 0;
        a += sum_half_f16c(p, n, done);
        return LaneFold<SumOp, In, Acc>::fold_run(a, p + done, 1, n - done, pos + done);
      }
    }
#endif
    if constexpr (std::is_same_v<In, float> || is_reduced_float_v<In>) {
      if (stride == 1 && n >= 64) {
        constexpr int64_t kBlock = 1024;
        int64_t i = 0;
        while (i + 8 <= n) {
          const int64_t end = std::min(n, i + kBlock);
          Float4 s0{}, s1{};
          for (; i + 8 <= end; i += 8) {
            s0 += load_float4(p + i);
            s1 += load_float4(p + i + 4);
          }
          const Float4 s = s0 + s1;
          a += (static_cast<double>(s[0]) + s[1]) + (static_cast<double>(s[2]) + s[3]);
        }
        return LaneFold<SumOp, In, Acc>::fold_run(a, p + i, 1, n - i, pos + i);
      }
    }
    return LaneFold<SumOp, In, Acc>::fold_run(a, p, stride, n, pos);
  }
};

// Products round like PyTorch's: in the op-math type (float for reduced floats).
template <class T>
using prod_acc_t =
    std::conditional_t<is_complex_v<T> || is_floating_v<T>, opmath_t<T>,
                       std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>>;

template <class In>
struct ProdOp : LaneFold<ProdOp<In>, In, prod_acc_t<In>> {
  using Acc = prod_acc_t<In>;
  Acc identity() const { return Acc(1); }
  // Integer products wrap as sums do (SumOp).
  Acc step(Acc a, const In& v, int64_t) const { return pwmath::wrap_mul(a, widen<Acc>(v)); }
  Acc merge(Acc a, Acc b) const { return pwmath::wrap_mul(a, b); }
};

// The extreme value of an empty fold: +-inf for floats, the type's bounds otherwise.
template <class V, bool IsMax>
V worst_value() {
  if constexpr (std::is_same_v<V, bool>) {
    return !IsMax;
  } else if constexpr (std::numeric_limits<V>::has_infinity) {
    return IsMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  } else {
    return IsMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
  }
}

// amax / amin: NaN propagates (a NaN anywhere makes the result NaN).
template <class In, bool IsMax>
struct ExtremeOp : LaneFold<ExtremeOp<In, IsMax>, In, opmath_t<In>> {
  using Acc = opmath_t<In>;
  Acc identity() const { return worst_value<Acc, IsMax>(); }
  Acc merge(Acc a, Acc b) const {
    if constexpr (std::is_same_v<Acc, bool>) {
      return IsMax ? (a || b) : (a && b);
    } else {
      return (IsMax ? b > a : b < a) || is_nan_value(b) ? b : a;
    }
  }
  Acc step(Acc a, const In& v, int64_t) const { return merge(a, widen<Acc>(v)); }

  // Contiguous float / double runs: compilers do not vectorize the NaN-aware
  // select above, so use vector extensions (GCC / Clang, any ISA): a plain
  // vector max plus a sticky "saw NaN" mask.
  Acc fold_run(Acc a, const In* p, int64_t stride, int64_t n, int64_t pos) const {
    if constexpr (std::is_floating_point_v<In>) {
      using Vec __attribute__((vector_size(16))) = In;  // one SSE / NEON register
      constexpr int64_t kLanes = sizeof(Vec) / sizeof(In);
      if (stride == 1 && n >= 8 * kLanes) {
        Vec m0, m1, b0, b1;
        for (int64_t l = 0; l < kLanes; ++l) m0[l] = identity();
        m1 = m0;
        decltype(b0 != b0) nan{};
        int64_t i = 0;
        for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
          std::memcpy(&b0, p + i, sizeof b0);
          std::memcpy(&b1, p + i + kLanes, sizeof b1);
          m0 = (IsMax ? b0 > m0 : b0 < m0) ? b0 : m0;
          m1 = (IsMax ? b1 > m1 : b1 < m1) ? b1 : m1;
          nan |= (b0 != b0) | (b1 != b1);
        }
        for (int64_t l = 0; l < kLanes; ++l) {
          a = merge(merge(a, m0[l]), m1[l]);
          if (nan[l]) a = std::numeric_limits<In>::quiet_NaN();
        }
        return LaneFold<ExtremeOp, In, Acc>::fold_run(a, p + i, 1, n - i, pos + i);
      }
    }
    return LaneFold<ExtremeOp, In, Acc>::fold_run(a, p, stride, n, pos);
  }
};

// Value and position of the max / min: the first occurrence wins, and NaN
// counts as the extreme (the first NaN wins), as in PyTorch.
template <class V>
struct ValueIndex {
  V value;
  int64_t index;
};

template <class In, bool IsMax>
struct ArgExtremeOp : LaneFold<ArgExtremeOp<In, IsMax>, In, ValueIndex<opmath_t<In>>> {
  using V = opmath_t<In>;
  using Acc = ValueIndex<V>;
  Acc identity() const { return {worst_value<V, IsMax>(), std::numeric_limits<int64_t>::max()}; }
  Acc merge(const Acc& a, const Acc& b) const {
    const bool na = is_nan_value(a.value), nb = is_nan_value(b.value);
    if (na || nb) return (nb && (!na || b.index < a.index)) ? b : a;
    if (IsMax ? b.value > a.value : b.value < a.value) return b;
    return (b.value == a.value && b.index < a.index) ? b : a;
  }
  Acc step(const Acc& a, const In& v, int64_t pos) const { return merge(a, Acc{widen<V>(v), pos}); }
};

// all / any: truthiness is PyTorch's (NaN is true).
template <class In, bool IsAll>
struct LogicalOp : LaneFold<LogicalOp<In, IsAll>, In, bool> {
  bool identity() const { return IsAll; }
  bool merge(bool a, bool b) const { return IsAll ? (a && b) : (a || b); }
  bool step(bool a, const In& v, int64_t) const { return merge(a, convert<bool>(v)); }
};

// log(sum(exp(x))) in one pass: keeps the running max m and sum(exp(x - m)),
// rescaling when the max grows. Infinite maxima are handled like PyTorch's
// "subtract the max unless it is infinite".
template <class In>
struct LogSumExpOp : LaneFold<LogSumExpOp<In>, In, std::array<opmath_t<In>, 2>> {
  using M = opmath_t<In>;
  using Acc = std::array<M, 2>;  // {max, sum of exp(x - max)}
  static M scaled(M s, M from, M to) { return from == to ? s : s * std::exp(from - to); }
  Acc identity() const { return {-std::numeric_limits<M>::infinity(), M(0)}; }
  Acc merge(const Acc& a, const Acc& b) const {
    const M m = b[0] > a[0] ? b[0] : a[0];
    return {m, scaled(a[1], a[0], m) + scaled(b[1], b[0], m)};
  }
  Acc step(const Acc& a, const In& v, int64_t) const { return merge(a, Acc{widen<M>(v), M(1)}); }
  static M finish(const Acc& a) { return std::log(a[1]) + a[0]; }
};

// Vector p-norms. Kinds other than the infinities accumulate in double.
enum class NormKind { Zero, One, Two, Inf, NegInf, General };

template <class In, NormKind K>
struct NormOp : LaneFold<NormOp<In, K>, In, double> {
  double p = 2.0;
  double identity() const {
    if constexpr (K == NormKind::Inf) return 0.0;  // |x| >= 0
    if constexpr (K == NormKind::NegInf) return std::numeric_limits<double>::infinity();
    return 0.0;
  }
  double merge(double a, double b) const {
    if constexpr (K == NormKind::Inf) return b > a || std::isnan(b) ? b : a;
    if constexpr (K == NormKind::NegInf) return b < a || std::isnan(b) ? b : a;
    return a + b;
  }
  double step(double a, const In& v, int64_t) const {
    const double x = std::abs(widen<double>(v));
    if constexpr (K == NormKind::Zero) return a + (x != 0.0 ? 1.0 : 0.0);
    if constexpr (K == NormKind::One) return a + x;
    if constexpr (K == NormKind::Two) return a + x * x;
    if constexpr (K == NormKind::General) return a + std::pow(x, p);
    return merge(a, x);
  }
  double finish(double a) const {
    if constexpr (K == NormKind::Two) return std::sqrt(a);
    if constexpr (K == NormKind::General) return std::pow(a, 1.0 / p);
    return a;
  }
};

// Variance by Welford / Chan: {count, mean, sum of squared deviations}, in
// double. Contiguous runs are folded block by block with an exact two-pass
// mean/deviation (no division per element), then merged.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};

template <class In>
struct MomentsOp {
  using in_t = In;
  using acc_t = Moments;
  Moments identity() const { return {}; }
  Moments merge(const Moments& a, const Moments& b) const {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const double n = a.n + b.n, delta = b.mean - a.mean;
    return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }
  Moments step(const Moments& a, const In& v, int64_t) const {
    const double x = widen<double>(v), n = a.n + 1, delta = x - a.mean, mean = a.mean + delta / n;
    return {n, mean, a.m2 + delta * (x - mean)};
  }
  Moments fold_run(Moments a, const In* p, int64_t stride, int64_t n, int64_t) const {
    constexpr int64_t kBlock = 2048;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t len = std::min(kBlock, n - b);
      const In* q = p + b * stride;
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += widen<double>(q[i * stride]);
      const double mean = sum / static_cast<double>(len);
      double m2 = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = widen<double>(q[i * stride]) - mean;
        m2 += d * d;
      }
      a = merge(a, Moments{static_cast<double>(len), mean, m2});
    }
    return a;
  }
};

}  // namespace npu::kernels
