#include "kernels/embedding/embedding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/copy/copy.h"
#include "kernels/core/compute_layout.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

namespace {

std::vector<int64_t> index_values(const TensorView& indices, int64_t rows, const char* op) {
  if (indices.dtype != DType::Int64 && indices.dtype != DType::Int32) {
    throw KernelError(std::string(op) + ": indices must be int32 or int64, got " + model::dtype_name(indices.dtype));
  }
  std::vector<int64_t> v(static_cast<std::size_t>(indices.numel()));
  if (!v.empty()) copy(TensorView{v.data(), DType::Int64, indices.sizes, contiguous_strides(indices.sizes)}, indices);
  for (const int64_t i : v) {
    if (i < 0 || i >= rows) {
      throw KernelError(std::string(op) + ": index " + std::to_string(i) + " is out of range [0, " +
                        std::to_string(rows) + ")");
    }
  }
  return v;
}

// Positions grouped by the row they name, in position order within a row:
// positions[start[r] .. start[r + 1]) name row r.
struct RowGroups {
  std::vector<int64_t> start;
  std::vector<int64_t> positions;
};

RowGroups group_by_row(const std::vector<int64_t>& idx, int64_t rows) {
  RowGroups g;
  g.start.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (const int64_t r : idx) ++g.start[r + 1];
  for (int64_t r = 0; r < rows; ++r) g.start[r + 1] += g.start[r];
  g.positions.resize(idx.size());
  std::vector<int64_t> next(g.start.begin(), g.start.end() - 1);
  for (std::size_t i = 0; i < idx.size(); ++i) g.positions[next[idx[i]]++] = static_cast<int64_t>(i);
  return g;
}

template <class T>
void dense_backward(const TensorView& out, const TensorView& grad2d, const RowGroups& groups, int64_t padding_idx,
                    bool scale_grad_by_freq) {
  using C = opmath_t<T>;
  std::optional<ScratchTensor> hg;
  const TensorView gc = contiguous_as(grad2d, grad2d.dtype, hg);
  const T* g = gc.ptr<T>();
  const int64_t d = grad2d.sizes[1];
  const int64_t rows = out.sizes[0];
  write_contiguous(out, out.dtype, [&](const TensorView& o) {
    T* w = o.ptr<T>();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, 64), [&](const tbb::blocked_range<int64_t>& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        T* dst = w + row * d;
        std::fill(dst, dst + d, T(0));
        const int64_t begin = groups.start[row];
        const int64_t end = groups.start[row + 1];
        if (row == padding_idx || begin == end) continue;
        const C scale = scale_grad_by_freq ? C(1) / static_cast<C>(end - begin) : C(1);
        for (int64_t k = begin; k < end; ++k) {
          const T* src = g + groups.positions[k] * d;
          if constexpr (std::is_same_v<T, C>) {
            if (!scale_grad_by_freq) {
              for (int64_t j = 0; j < d; ++j) dst[j] += src[j];
              continue;
            }
          }
          for (int64_t j = 0; j < d; ++j) {
            dst[j] = static_cast<T>(static_cast<C>(dst[j]) + scale * static_cast<C>(src[j]));
          }
        }
      }
    });
  });
}

double norm_of(const std::vector<double>& row, double p) {
  if (std::isinf(p)) {
    double m = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (const double v : row) m = p > 0 ? std::max(m, std::abs(v)) : std::min(m, std::abs(v));
    return m;
  }
  if (p == 0) {
    double n = 0;
    for (const double v : row) n += v != 0 ? 1 : 0;
    return n;
  }
  double s = 0;
  for (const double v : row) s += std::pow(std::abs(v), p);
  return std::pow(s, 1.0 / p);
}

}  // namespace

void embedding(const TensorView& out, const TensorView& weight, const TensorView& indices) {
  if (weight.dim() != 2) throw KernelError("embedding: weight must be 2-dim, got " + shape_str(weight.sizes));
  if (out.dtype != weight.dtype) throw KernelError("embedding: out must have weight's dtype");
  const int64_t d = weight.sizes[1];
  if (out.numel() != indices.numel() * d) {
    throw KernelError("embedding: out " + shape_str(out.sizes) + " must have shape indices.shape + [" +
                      std::to_string(d) + "]");
  }
  const std::vector<int64_t> idx = index_values(indices, weight.sizes[0], "embedding");
  const auto item = static_cast<int64_t>(weight.itemsize());
  write_contiguous(out, out.dtype, [&](const TensorView& o) {
    auto* dst = static_cast<unsigned char*>(o.data);
    const auto* src = static_cast<const unsigned char*>(weight.data);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, idx.size(), 256), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i < r.end(); ++i) {
        const unsigned char* row = src + idx[i] * weight.strides[0] * item;
        unsigned char* to = dst + static_cast<int64_t>(i) * d * item;
        if (weight.strides[1] == 1 || d <= 1) {
          std::memcpy(to, row, static_cast<std::size_t>(d * item));
        } else {
          copy(TensorView{to, o.dtype, {d}, {1}}, TensorView{const_cast<unsigned char*>(row), weight.dtype, {d}, {weight.strides[1]}});
        }
      }
    });
  });
}

void embedding_dense_backward(const TensorView& out, const TensorView& grad, const TensorView& indices,
                              int64_t padding_idx, bool scale_grad_by_freq) {
  if (out.dim() != 2) throw KernelError("embedding_dense_backward: out must be 2-dim, got " + shape_str(out.sizes));
  if (grad.dtype != out.dtype) throw KernelError("embedding_dense_backward: out must have grad's dtype");
  const int64_t rows = out.sizes[0];
  const int64_t d = out.sizes[1];
  if (grad.dim() < 1 || grad.sizes[grad.dim() - 1] != d || grad.numel() != indices.numel() * d) {
    throw KernelError("embedding_dense_backward: grad " + shape_str(grad.sizes) + " does not match indices " +
                      shape_str(indices.sizes) + " and out " + shape_str(out.sizes));
  }
  const std::vector<int64_t> idx = index_values(indices, rows, "embedding_dense_backward");
  const RowGroups groups = group_by_row(idx, rows);
  // grad as [numel(indices), D]: contiguous first (a view only when it is).
  std::optional<ScratchTensor> hg;
  const TensorView gc = contiguous_as(grad, grad.dtype, hg);
  const TensorView grad2d{gc.data, gc.dtype, {indices.numel(), d}, {d, 1}};
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) {
      dense_backward<T>(out, grad2d, groups, padding_idx, scale_grad_by_freq);
    } else {
      throw KernelError(std::string("embedding_dense_backward: grad must be floating point, got ") +
                        model::dtype_name(out.dtype));
    }
  });
}

void embedding_renorm(const TensorView& self, const TensorView& indices, double max_norm, double norm_type) {
  if (self.dim() != 2) throw KernelError("embedding_renorm: self must be 2-dim, got " + shape_str(self.sizes));
  std::vector<int64_t> idx = index_values(indices, self.sizes[0], "embedding_renorm");
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const int64_t d = self.sizes[1];
  std::vector<double> row(static_cast<std::size_t>(d));
  const TensorView buffer{row.data(), DType::Float64, {d}, {1}};
  for (const int64_t r : idx) {
    TensorView v = self;
    v.data = static_cast<unsigned char*>(self.data) + r * self.strides[0] * static_cast<int64_t>(self.itemsize());
    v.sizes = {d};
    v.strides = {self.strides[1]};
    copy(buffer, v);
    const double norm = norm_of(row, norm_type);
    if (!(norm > max_norm)) continue;
    const double scale = max_norm / (norm + 1e-7);
    for (double& x : row) x *= scale;
    copy(v, buffer);
  }
}

}  // namespace npu::kernels
