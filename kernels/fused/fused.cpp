// The fused LLM kernels (fused.h), on dense buffers of the compute type.
#include "kernels/fused/fused.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels {

namespace {

// The element offsets (under `strides`) of every index of `sizes`, row-major.
std::vector<int64_t> offsets_of(const Shape& sizes, const Shape& strides) {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  std::vector<int64_t> out(static_cast<std::size_t>(n));
  const std::array<const Shape*, 1> st{&strides};
  for_each_run<1>(sizes, st, 0, n, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t len) {
    const int64_t step = sizes.empty() ? 0 : strides.back();
    for (int64_t i = 0; i < len; ++i) out[static_cast<std::size_t>(pos + i)] = off[0] + i * step;
  });
  return out;
}

// `t` in row-major order, converted to C.
template <class C>
std::vector<C> gather(const TensorView& t) {
  const std::vector<int64_t> off = offsets_of(t.sizes, t.strides);
  std::vector<C> out(off.size());
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.ptr<const T>();
    for (std::size_t i = 0; i < off.size(); ++i) out[i] = convert<C>(p[off[i]]);
  });
  return out;
}

// Writes row-major `v` into `t`, converted to t's dtype.
template <class C>
void scatter(const TensorView& t, const std::vector<C>& v) {
  const std::vector<int64_t> off = offsets_of(t.sizes, t.strides);
  if (off.size() != v.size()) throw KernelError("fused kernel: output size mismatch");
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.ptr<T>();
    for (std::size_t i = 0; i < off.size(); ++i) p[off[i]] = convert<T>(v[i]);
  });
}

// Calls f(C{}) with C = double for a float64 operand, else float.
template <class F>
void with_compute(DType dtype, F&& f) {
  if (dtype == DType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* op) {
  if (dim < -rank || dim >= rank) {
    throw KernelError(std::string(op) + ": dim " + std::to_string(dim) + " out of range for rank " +
                      std::to_string(rank));
  }
  return dim < 0 ? dim + rank : dim;
}

// rotate(x) along rows of length d, and its transpose (the gradient's map).
template <class C>
void rotate_rows(std::vector<C>& out, const std::vector<C>& x, int64_t d, RotaryMode mode, bool transpose) {
  const C sign = transpose ? C(-1) : C(1);
  const int64_t rows = d == 0 ? 0 : static_cast<int64_t>(x.size()) / d;
  for (int64_t r = 0; r < rows; ++r) {
    const C* in = x.data() + r * d;
    C* o = out.data() + r * d;
    if (mode == RotaryMode::kHalf) {
      const int64_t h = d / 2;
      for (int64_t i = 0; i < h; ++i) {
        o[i] = -sign * in[i + h];
        o[i + h] = sign * in[i];
      }
    } else {
      for (int64_t i = 0; i + 1 < d; i += 2) {
        o[i] = -sign * in[i + 1];
        o[i + 1] = sign * in[i];
      }
    }
  }
}

void check_rotary(const TensorView& x, const TensorView& cos, const TensorView& sin) {
  if (x.dim() == 0 || x.sizes.back() % 2 != 0) {
    throw KernelError("rotary position embedding: x's last dim must be even, got shape " + shape_str(x.sizes));
  }
  if (broadcast_shapes(x.sizes, cos.sizes) != x.sizes || broadcast_shapes(x.sizes, sin.sizes) != x.sizes) {
    throw KernelError("rotary position embedding: cos " + shape_str(cos.sizes) + " and sin " +
                      shape_str(sin.sizes) + " must broadcast to x " + shape_str(x.sizes));
  }
}

// Sums full-shape `v` down to `shape` (which broadcasts to `full`).
template <class C>
std::vector<C> sum_to(const std::vector<C>& v, const Shape& full, const Shape& shape) {
  const Shape dense = contiguous_strides(shape);
  const TensorView acc_view{nullptr, DType::Float32, shape, dense};
  const TensorView b = broadcast_to(acc_view, full);
  const std::vector<int64_t> off = offsets_of(full, b.strides);
  int64_t n = 1;
  for (const int64_t s : shape) n *= s;
  std::vector<double> acc(static_cast<std::size_t>(n), 0.0);
  for (std::size_t i = 0; i < off.size(); ++i) acc[static_cast<std::size_t>(off[i])] += static_cast<double>(v[i]);
  return std::vector<C>(acc.begin(), acc.end());
}

// [outer, 2 * half, inner] split of x around `dim`.
struct Halves {
  int64_t outer = 1, half = 0, inner = 1;
};

Halves halves(const Shape& sizes, int64_t dim) {
  Halves h;
  for (int64_t i = 0; i < dim; ++i) h.outer *= sizes[i];
  for (int64_t i = dim + 1; i < static_cast<int64_t>(sizes.size()); ++i) h.inner *= sizes[i];
  if (sizes[dim] % 2 != 0) {
    throw KernelError("swiglu: the size of dim " + std::to_string(dim) + " must be even, got " +
                      std::to_string(sizes[dim]));
  }
  h.half = sizes[dim] / 2;
  return h;
}

template <class C>
C sigmoid(C a) {
  return C(1) / (C(1) + std::exp(-a));
}

// Whether element e (row-major over x's shape) is masked.
template <class C>
std::vector<uint8_t> mask_flags(const TensorView& x, const TensorView* mask, bool fixed_triu) {
  std::vector<uint8_t> flags(static_cast<std::size_t>(x.numel()), 0);
  if (fixed_triu) {
    const int64_t cols = x.sizes.back();
    const int64_t rows = x.dim() >= 2 ? x.sizes[x.dim() - 2] : 1;
    for (std::size_t e = 0; e < flags.size(); ++e) {
      const int64_t j = static_cast<int64_t>(e) % cols;
      const int64_t i = (static_cast<int64_t>(e) / cols) % rows;
      flags[e] = j > i ? 1 : 0;
    }
  } else if (mask != nullptr) {
    const std::vector<float> m = gather<float>(broadcast_to(*mask, x.sizes));
    for (std::size_t e = 0; e < flags.size(); ++e) flags[e] = m[e] != 0.0f ? 1 : 0;
  }
  return flags;
}

}  // namespace

void add_same_shape(const TensorView& out, const TensorView& a, const TensorView& b) {
  if (a.sizes != b.sizes || out.sizes != a.sizes) throw KernelError("add: operands must share one shape");
  with_compute(a.dtype, [&](auto zero) {
    using C = decltype(zero);
    std::vector<C> x = gather<C>(a);
    const std::vector<C> y = gather<C>(b);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
    scatter(out, x);
  });
}

void rotary_mul(const TensorView& out, const TensorView& x, const TensorView& cos, const TensorView& sin,
                RotaryMode mode) {
  check_rotary(x, cos, sin);
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    const std::vector<C> xv = gather<C>(x);
    const std::vector<C> c = gather<C>(broadcast_to(cos, x.sizes));
    const std::vector<C> s = gather<C>(broadcast_to(sin, x.sizes));
    std::vector<C> rot(xv.size());
    rotate_rows(rot, xv, x.sizes.back(), mode, false);
    std::vector<C> y(xv.size());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = xv[i] * c[i] + rot[i] * s[i];
    scatter(out, y);
  });
}

void rotary_mul_backward(const TensorView& dy, const TensorView& x, const TensorView& cos, const TensorView& sin,
                         RotaryMode mode, const TensorView* dx, const TensorView* dcos, const TensorView* dsin) {
  check_rotary(x, cos, sin);
  if (dy.sizes != x.sizes) throw KernelError("rotary position embedding grad: dy must have x's shape");
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    const std::vector<C> g = gather<C>(dy);
    const int64_t d = x.sizes.back();
    if (dx != nullptr) {
      const std::vector<C> c = gather<C>(broadcast_to(cos, x.sizes));
      const std::vector<C> s = gather<C>(broadcast_to(sin, x.sizes));
      std::vector<C> gs(g.size());
      for (std::size_t i = 0; i < g.size(); ++i) gs[i] = g[i] * s[i];
      std::vector<C> back(g.size());
      rotate_rows(back, gs, d, mode, true);
      for (std::size_t i = 0; i < g.size(); ++i) back[i] += g[i] * c[i];
      scatter(*dx, back);
    }
    if (dcos != nullptr || dsin != nullptr) {
      const std::vector<C> xv = gather<C>(x);
      std::vector<C> prod(g.size());
      if (dcos != nullptr) {
        for (std::size_t i = 0; i < g.size(); ++i) prod[i] = g[i] * xv[i];
        scatter(*dcos, sum_to(prod, x.sizes, cos.sizes));
      }
      if (dsin != nullptr) {
        std::vector<C> rot(xv.size());
        rotate_rows(rot, xv, d, mode, false);
        for (std::size_t i = 0; i < g.size(); ++i) prod[i] = g[i] * rot[i];
        scatter(*dsin, sum_to(prod, x.sizes, sin.sizes));
      }
    }
  });
}

void swiglu(const TensorView& out, const TensorView& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, x.dim(), "swiglu");
  const Halves h = halves(x.sizes, d);
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    const std::vector<C> xv = gather<C>(x);
    std::vector<C> y(static_cast<std::size_t>(h.outer * h.half * h.inner));
    for (int64_t o = 0; o < h.outer; ++o) {
      for (int64_t j = 0; j < h.half; ++j) {
        for (int64_t i = 0; i < h.inner; ++i) {
          const C a = xv[static_cast<std::size_t>((o * 2 * h.half + j) * h.inner + i)];
          const C b = xv[static_cast<std::size_t>((o * 2 * h.half + j + h.half) * h.inner + i)];
          y[static_cast<std::size_t>((o * h.half + j) * h.inner + i)] = a * sigmoid(a) * b;
        }
      }
    }
    scatter(out, y);
  });
}

void swiglu_backward(const TensorView& dx, const TensorView& dy, const TensorView& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, x.dim(), "swiglu backward");
  const Halves h = halves(x.sizes, d);
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    const std::vector<C> xv = gather<C>(x);
    const std::vector<C> g = gather<C>(dy);
    std::vector<C> out(xv.size());
    for (int64_t o = 0; o < h.outer; ++o) {
      for (int64_t j = 0; j < h.half; ++j) {
        for (int64_t i = 0; i < h.inner; ++i) {
          const auto ia = static_cast<std::size_t>((o * 2 * h.half + j) * h.inner + i);
          const auto ib = static_cast<std::size_t>((o * 2 * h.half + j + h.half) * h.inner + i);
          const C gy = g[static_cast<std::size_t>((o * h.half + j) * h.inner + i)];
          const C a = xv[ia], b = xv[ib], s = sigmoid(a);
          out[ia] = gy * b * s * (C(1) + a * (C(1) - s));
          out[ib] = gy * a * s;
        }
      }
    }
    scatter(dx, out);
  });
}

void scaled_masked_softmax(const TensorView& y, const TensorView& x, const TensorView* mask, double scale,
                           bool fixed_triu) {
  if (x.dim() == 0) throw KernelError("scaled masked softmax: x must have at least one dim");
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    std::vector<C> v = gather<C>(x);
    const std::vector<uint8_t> masked = mask_flags<C>(x, mask, fixed_triu);
    const int64_t cols = x.sizes.back();
    const int64_t rows = cols == 0 ? 0 : static_cast<int64_t>(v.size()) / cols;
    for (int64_t r = 0; r < rows; ++r) {
      C* row = v.data() + r * cols;
      C mx = -std::numeric_limits<C>::infinity();
      for (int64_t j = 0; j < cols; ++j) {
        row[j] = masked[static_cast<std::size_t>(r * cols + j)] ? C(-10000) : row[j] * static_cast<C>(scale);
        mx = std::max(mx, row[j]);
      }
      C sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += (row[j] = std::exp(row[j] - mx));
      for (int64_t j = 0; j < cols; ++j) row[j] /= sum;
    }
    scatter(y, v);
  });
}

void scaled_masked_softmax_backward(const TensorView& dx, const TensorView& dy, const TensorView& y,
                                    const TensorView* mask, double scale, bool fixed_triu) {
  if (dy.sizes != y.sizes) throw KernelError("scaled masked softmax backward: dy must have y's shape");
  with_compute(y.dtype, [&](auto zero) {
    using C = decltype(zero);
    const std::vector<C> yv = gather<C>(y);
    const std::vector<C> g = gather<C>(dy);
    const std::vector<uint8_t> masked = mask_flags<C>(y, mask, fixed_triu);
    std::vector<C> out(yv.size());
    const int64_t cols = y.sizes.back();
    const int64_t rows = cols == 0 ? 0 : static_cast<int64_t>(yv.size()) / cols;
    for (int64_t r = 0; r < rows; ++r) {
      const std::size_t base = static_cast<std::size_t>(r * cols);
      C dot = 0;
      for (int64_t j = 0; j < cols; ++j) dot += g[base + j] * yv[base + j];
      for (int64_t j = 0; j < cols; ++j) {
        out[base + j] = masked[base + j] ? C(0) : static_cast<C>(scale) * yv[base + j] * (g[base + j] - dot);
      }
    }
    scatter(dx, out);
  });
}

void moe_gating_top_k_softmax(const TensorView& y, const TensorView& expert_idx, const TensorView& row_idx,
                              const TensorView& x, const TensorView* finished, int64_t k) {
  if (x.dim() < 1) throw KernelError("moe gating top-k softmax: x must have at least one dim");
  const int64_t experts = x.sizes.back();
  if (k < 1 || k > experts) {
    throw KernelError("moe gating top-k softmax: k must be in [1, " + std::to_string(experts) + "], got " +
                      std::to_string(k));
  }
  with_compute(x.dtype, [&](auto zero) {
    using C = decltype(zero);
    std::vector<C> v = gather<C>(x);
    const int64_t rows = experts == 0 ? 0 : static_cast<int64_t>(v.size()) / experts;
    std::vector<float> done;
    if (finished != nullptr) done = gather<float>(*finished);
    std::vector<C> top(static_cast<std::size_t>(rows * k));
    std::vector<int32_t> idx(top.size()), rid(top.size());
    std::vector<int64_t> order(static_cast<std::size_t>(experts));
    for (int64_t r = 0; r < rows; ++r) {
      C* row = v.data() + r * experts;
      const C mx = *std::max_element(row, row + experts);
      C sum = 0;
      for (int64_t j = 0; j < experts; ++j) sum += (row[j] = std::exp(row[j] - mx));
      for (int64_t j = 0; j < experts; ++j) row[j] /= sum;
      std::iota(order.begin(), order.end(), int64_t{0});
      // Descending probability; ties keep the lower expert index first.
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
      const bool row_done = !done.empty() && done[static_cast<std::size_t>(r)] != 0.0f;
      for (int64_t j = 0; j < k; ++j) {
        const auto o = static_cast<std::size_t>(r * k + j);
        top[o] = row[order[static_cast<std::size_t>(j)]];
        idx[o] = static_cast<int32_t>(row_done ? experts : order[static_cast<std::size_t>(j)]);
        rid[o] = static_cast<int32_t>(j * rows + r);
      }
    }
    scatter(y, top);
    scatter(expert_idx, idx);
    scatter(row_idx, rid);
  });
}

void scatter_update(const TensorView& data, const TensorView& indices, const TensorView& updates, int64_t axis) {
  const int64_t rank = data.dim();
  if (rank < 2 || updates.dim() != rank) {
    throw KernelError("scatter update: data and updates must have one rank of at least 2, got " +
                      shape_str(data.sizes) + " and " + shape_str(updates.sizes));
  }
  const int64_t ax = wrap_dim(axis, rank, "scatter update");
  if (ax == 0) throw KernelError("scatter update: axis must not be the batch dim 0");
  for (int64_t d = 0; d < rank; ++d) {
    if (d != ax && d != 0 && updates.sizes[d] != data.sizes[d]) {
      throw KernelError("scatter update: updates " + shape_str(updates.sizes) + " must match data " +
                        shape_str(data.sizes) + " except along axis and the batch dim");
    }
  }
  const std::vector<int64_t> idx = gather<int64_t>(indices);
  const bool pairs = indices.dim() == 2;
  if (!(indices.dim() == 1 || (pairs && indices.sizes[1] == 2))) {
    throw KernelError("scatter update: indices must be [B] or [B, 2], got " + shape_str(indices.sizes));
  }
  const int64_t batches = indices.sizes[0];
  if (batches != updates.sizes[0] || (!pairs && batches != data.sizes[0])) {
    throw KernelError("scatter update: indices " + shape_str(indices.sizes) + " must have one entry per batch of "
                      "updates " + shape_str(updates.sizes));
  }
  const int64_t len = updates.sizes[ax];
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t target = pairs ? idx[static_cast<std::size_t>(2 * b)] : b;
    const int64_t start = pairs ? idx[static_cast<std::size_t>(2 * b + 1)] : idx[static_cast<std::size_t>(b)];
    if (target < 0 || target >= data.sizes[0] || start < 0 || start + len > data.sizes[ax]) {
      throw KernelError("scatter update: index " + std::to_string(start) + " (+ " + std::to_string(len) +
                        " updates) of batch " + std::to_string(target) + " is out of range for data " +
                        shape_str(data.sizes));
    }
    TensorView dst = data;
    dst.data = static_cast<char*>(data.data) +
               static_cast<std::ptrdiff_t>((target * data.strides[0] + start * data.strides[ax]) *
                                           static_cast<int64_t>(data.itemsize()));
    dst.sizes = updates.sizes;
    dst.sizes[0] = 1;
    TensorView src = updates;
    src.data = static_cast<char*>(updates.data) +
               static_cast<std::ptrdiff_t>(b * updates.strides[0] * static_cast<int64_t>(updates.itemsize()));
    src.sizes[0] = 1;
    if (src.dtype != dst.dtype) throw KernelError("scatter update: updates must have data's dtype");
    visit_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::vector<int64_t> so = offsets_of(src.sizes, src.strides);
      const std::vector<int64_t> doff = offsets_of(dst.sizes, dst.strides);
      const T* s = src.ptr<const T>();
      T* t = dst.ptr<T>();
      for (std::size_t i = 0; i < so.size(); ++i) t[doff[i]] = s[so[i]];
    });
  }
}

}  // namespace npu::kernels
