#include "kernels/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels {

namespace {

// A tensor as [outer, n, inner] around `dim`: the rows reduced are the n
// elements `inner` apart.
struct Rows {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

Rows rows_of(const TensorView& t, int64_t dim) {
  Rows r;
  if (t.dim() == 0) return r;
  if (dim < 0 || dim >= t.dim()) throw KernelError("softmax: dim " + std::to_string(dim) + " out of range");
  for (int64_t d = 0; d < dim; ++d) r.outer *= t.sizes[d];
  r.n = t.sizes[dim];
  for (int64_t d = dim + 1; d < t.dim(); ++d) r.inner *= t.sizes[d];
  return r;
}

// Calls body(base, stride) for every row, rows spread over workers.
template <class Body>
void for_each_row(const Rows& r, Body&& body) {
  parallel_range(r.outer * r.inner, grain_for(r.n), [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t o = line / r.inner;
      const int64_t i = line % r.inner;
      body(o * r.n * r.inner + i, r.inner);
    }
  });
}

// `round` is the dtype CPU's kernel rounds log_softmax's row sum and its
// log to (float16/bfloat16 reduced along the last dim); others round none.
template <class T>
void softmax_rows(T* y, const T* x, const Rows& r, bool log, DType round) {
  for_each_row(r, [&](int64_t base, int64_t s) {
    const T* xr = x + base;
    T* yr = y + base;
    T mx = -std::numeric_limits<T>::infinity();
    for (int64_t k = 0; k < r.n; ++k) mx = std::max(mx, xr[k * s]);  // NaN handled below via exp
    if (std::isinf(mx)) mx = mx > 0 ? mx : T(0);  // all -inf rows: keep exp(-inf) = 0
    double sum = 0;  // double: the row's sum independent of the summation order
    if (log) {
      for (int64_t k = 0; k < r.n; ++k) sum += std::exp(xr[k * s] - mx);
      // (x - max) - log(sum), in this order, as CPU's kernel rounds it.
      const T log_sum = static_cast<T>(rounded_to(round, std::log(rounded_to(round, sum))));
      for (int64_t k = 0; k < r.n; ++k) yr[k * s] = (xr[k * s] - mx) - log_sum;
    } else {
      for (int64_t k = 0; k < r.n; ++k) {
        const T e = std::exp(xr[k * s] - mx);
        yr[k * s] = e;
        sum += e;
      }
      const T inv = static_cast<T>(1.0 / sum);
      for (int64_t k = 0; k < r.n; ++k) yr[k * s] *= inv;
    }
  });
}

template <class T>
void softmax_backward_rows(T* gi, const T* g, const T* y, const Rows& r, bool log) {
  for_each_row(r, [&](int64_t base, int64_t s) {
    double acc = 0;
    if (log) {
      for (int64_t k = 0; k < r.n; ++k) acc += g[base + k * s];
      const T sum = static_cast<T>(acc);
      for (int64_t k = 0; k < r.n; ++k) {
        const int64_t i = base + k * s;
        gi[i] = g[i] - std::exp(y[i]) * sum;
      }
    } else {
      for (int64_t k = 0; k < r.n; ++k) acc += static_cast<double>(g[base + k * s]) * y[base + k * s];
      const T sum = static_cast<T>(acc);
      for (int64_t k = 0; k < r.n; ++k) {
        const int64_t i = base + k * s;
        gi[i] = y[i] * (g[i] - sum);
      }
    }
  });
}

void require_floating(const char* op, const TensorView& t) {
  if (!model::is_floating_point(t.dtype) || model::is_complex(t.dtype)) {
    throw KernelError(std::string(op) + ": expected a floating point tensor, got " + model::dtype_name(t.dtype));
  }
}

}  // namespace

void softmax(const TensorView& out, const TensorView& in, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  require_floating(op, in);
  require_floating(op, out);
  if (out.sizes != in.sizes) throw KernelError(std::string(op) + ": out must have self's shape");
  const Rows r = rows_of(in, dim);
  if (in.numel() == 0) return;
  const DType acc = compute_dtype_of(in.dtype == DType::Float64 || out.dtype == DType::Float64 ? DType::Float64
                                                                                                : DType::Float32);
  std::optional<ScratchTensor> hx;
  const TensorView x = contiguous_as(in, acc, hx);
  const bool reduced = in.dtype == DType::Float16 || in.dtype == DType::BFloat16;
  const DType round = reduced && r.inner == 1 ? in.dtype : DType::Float64;
  write_contiguous(out, acc, [&](const TensorView& y) {
    if (acc == DType::Float64) {
      softmax_rows(y.ptr<double>(), x.ptr<double>(), r, log, round);
    } else {
      softmax_rows(y.ptr<float>(), x.ptr<float>(), r, log, round);
    }
  });
}

void softmax_backward(const TensorView& grad_input, const TensorView& grad_output, const TensorView& output,
                      int64_t dim, bool log) {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  require_floating(op, grad_output);
  require_floating(op, output);
  require_floating(op, grad_input);
  if (grad_output.sizes != output.sizes || grad_input.sizes != output.sizes) {
    throw KernelError(std::string(op) + ": gradOutput, output and out must have one shape");
  }
  const Rows r = rows_of(output, dim);
  if (output.numel() == 0) return;
  const DType acc = compute_dtype_of(grad_input.dtype == DType::Float64 ? DType::Float64 : output.dtype);
  std::optional<ScratchTensor> hg, hy;
  const TensorView g = contiguous_as(grad_output, acc, hg);
  const TensorView y = contiguous_as(output, acc, hy);
  write_contiguous(grad_input, acc, [&](const TensorView& gi) {
    if (acc == DType::Float64) {
      softmax_backward_rows(gi.ptr<double>(), g.ptr<double>(), y.ptr<double>(), r, log);
    } else {
      softmax_backward_rows(gi.ptr<float>(), g.ptr<float>(), y.ptr<float>(), r, log);
    }
  });
}

}  // namespace npu::kernels
