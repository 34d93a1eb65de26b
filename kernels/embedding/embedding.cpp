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
    // CPU reads the norm back from a tensor of self's dtype and multiplies
    // the row by the scale rounded to that dtype, in float (double for
    // float64).
    const double norm = rounded_to(self.dtype, norm_of(row, norm_type));
    if (!(norm > max_norm)) continue;
    const double scale = rounded_to(self.dtype, max_norm / (norm + 1e-7));
    for (double& x : row) {
      x = self.dtype == DType::Float64 ? x * scale : static_cast<float>(x) * static_cast<float>(scale);
    }
    copy(v, buffer);
  }
}

namespace {

std::vector<int64_t> int_values(const TensorView& t) {
  std::vector<int64_t> v(static_cast<std::size_t>(t.numel()));
  if (!v.empty()) copy(TensorView{v.data(), DType::Int64, t.sizes, contiguous_strides(t.sizes)}, t);
  return v;
}

template <class C>
std::vector<C> values_of(const TensorView& t, DType cdt) {
  std::vector<C> v(static_cast<std::size_t>(t.numel()));
  if (!v.empty()) copy(TensorView{v.data(), cdt, t.sizes, contiguous_strides(t.sizes)}, t);
  return v;
}

void write_ints(const TensorView& out, std::vector<int64_t> v) {
  // An empty output is one the caller does not want (torch_npu passes
  // offset2bag as [0] for mode sum without padding_idx): CANN leaves it.
  if (out.numel() == 0) return;
  if (static_cast<int64_t>(v.size()) != out.numel()) {
    throw KernelError("embedding_bag: an index output has " + std::to_string(out.numel()) + " elements, expected " +
                      std::to_string(v.size()));
  }
  if (!v.empty()) copy(out, TensorView{v.data(), DType::Int64, out.sizes, contiguous_strides(out.sizes)});
}

template <class C>
void bag_forward(const TensorView& out, const TensorView& offset2bag, const TensorView& bag_size,
                 const TensorView& max_indices, const TensorView& weight, const std::vector<int64_t>& idx,
                 const std::vector<int64_t>& begin, BagMode mode, const TensorView* per_sample_weights,
                 int64_t padding_idx) {
  const DType cdt = compute_dtype_of(out.dtype);
  const int64_t d = weight.sizes[1];
  const auto bags = static_cast<int64_t>(begin.size()) - 1;
  const std::vector<C> w = values_of<C>(weight, cdt);
  const std::vector<C> psw = per_sample_weights != nullptr ? values_of<C>(*per_sample_weights, cdt) : std::vector<C>{};
  std::vector<C> result(static_cast<std::size_t>(bags * d), C(0));
  std::vector<int64_t> o2b(idx.size(), 0);
  std::vector<int64_t> sizes(static_cast<std::size_t>(bags), 0);
  std::vector<int64_t> argmax(mode == BagMode::Max ? static_cast<std::size_t>(bags * d) : max_indices.numel(),
                              mode == BagMode::Max ? -1 : 0);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, bags, 16), [&](const tbb::blocked_range<int64_t>& r) {
    for (int64_t b = r.begin(); b < r.end(); ++b) {
      C* acc = result.data() + b * d;
      int64_t count = 0;
      for (int64_t i = begin[b]; i < begin[b + 1]; ++i) {
        o2b[i] = b;
        const int64_t row = idx[i];
        if (row == padding_idx) continue;
        const C* src = w.data() + row * d;
        if (mode == BagMode::Max) {
          int64_t* am = argmax.data() + b * d;
          for (int64_t j = 0; j < d; ++j) {
            if (count == 0 || src[j] > acc[j]) {
              acc[j] = src[j];
              am[j] = row;
            }
          }
        } else {
          const C s = psw.empty() ? C(1) : psw[i];
          for (int64_t j = 0; j < d; ++j) acc[j] += s * src[j];
        }
        ++count;
      }
      sizes[b] = count;
      if (mode == BagMode::Mean && count > 0) {
        for (int64_t j = 0; j < d; ++j) acc[j] /= static_cast<C>(count);
      }
    }
  });
  copy(out, TensorView{result.data(), cdt, {bags, d}, {d, 1}});
  write_ints(offset2bag, std::move(o2b));
  write_ints(bag_size, std::move(sizes));
  write_ints(max_indices, std::move(argmax));
}

}  // namespace

void embedding_bag(const TensorView& out, const TensorView& offset2bag, const TensorView& bag_size,
                   const TensorView& max_indices, const TensorView& weight, const TensorView& indices,
                   const TensorView& offsets, BagMode mode, const TensorView* per_sample_weights,
                   bool include_last_offset, int64_t padding_idx) {
  if (weight.dim() != 2) throw KernelError("embedding_bag: weight must be 2-dim, got " + shape_str(weight.sizes));
  const std::vector<int64_t> idx = index_values(indices, weight.sizes[0], "embedding_bag");
  const std::vector<int64_t> off = int_values(offsets);
  const auto n = static_cast<int64_t>(idx.size());
  const int64_t bags = include_last_offset ? static_cast<int64_t>(off.size()) - 1 : static_cast<int64_t>(off.size());
  if (bags < 0) throw KernelError("embedding_bag: include_last_offset needs at least one offset");
  if (!off.empty() && off[0] != 0) {
    throw KernelError("embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                      "start from position 0. However, got " + std::to_string(off[0]));
  }
  std::vector<int64_t> begin(static_cast<std::size_t>(bags) + 1, n);
  for (int64_t b = 0; b < bags; ++b) begin[b] = off[b];
  if (include_last_offset && bags > 0) begin[bags] = off[bags];
  for (int64_t b = 0; b < bags; ++b) {
    if (begin[b + 1] < begin[b] || begin[b + 1] > n) {
      throw KernelError("embedding_bag: offsets must be non-decreasing and at most the number of indices (" +
                        std::to_string(n) + "), got " + std::to_string(begin[b + 1]) + " after " +
                        std::to_string(begin[b]));
    }
  }
  if (out.dim() != 2 || out.sizes[0] != bags || out.sizes[1] != weight.sizes[1]) {
    throw KernelError("embedding_bag: out must have shape [" + std::to_string(bags) + ", " +
                      std::to_string(weight.sizes[1]) + "], got " + shape_str(out.sizes));
  }
  if (out.dtype == DType::Float64) {
    bag_forward<double>(out, offset2bag, bag_size, max_indices, weight, idx, begin, mode, per_sample_weights,
                        padding_idx);
  } else {
    bag_forward<float>(out, offset2bag, bag_size, max_indices, weight, idx, begin, mode, per_sample_weights,
                       padding_idx);
  }
}

void embedding_bag_dense_backward(const TensorView& out, const TensorView& grad, const TensorView& indices,
                                  const TensorView& offset2bag, const TensorView& bag_size,
                                  const TensorView& max_indices, bool scale_grad_by_freq, BagMode mode,
                                  const TensorView* per_sample_weights, int64_t padding_idx) {
  if (out.dim() != 2 || grad.dim() != 2 || grad.sizes[1] != out.sizes[1]) {
    throw KernelError("embedding_bag_backward: grad " + shape_str(grad.sizes) + " and out " + shape_str(out.sizes) +
                      " must be [B, D] and [num_weights, D]");
  }
  const int64_t rows = out.sizes[0];
  const int64_t d = out.sizes[1];
  const int64_t bags = grad.sizes[0];
  const DType cdt = compute_dtype_of(out.dtype);
  const auto run = [&](auto tag) {
    using C = typename decltype(tag)::type;
    const std::vector<C> g = values_of<C>(grad, cdt);
    std::vector<C> result(static_cast<std::size_t>(rows * d), C(0));
    if (mode == BagMode::Max) {
      const std::vector<int64_t> am = int_values(max_indices);
      if (static_cast<int64_t>(am.size()) != bags * d) {
        throw KernelError("embedding_bag_backward: max_indices must have shape [B, D]");
      }
      for (int64_t b = 0; b < bags; ++b) {
        for (int64_t j = 0; j < d; ++j) {
          const int64_t row = am[b * d + j];
          if (row < 0) continue;  // an empty bag
          if (row >= rows) throw KernelError("embedding_bag_backward: max index out of range");
          result[row * d + j] += g[b * d + j];
        }
      }
    } else {
      const std::vector<int64_t> idx = index_values(indices, rows, "embedding_bag_backward");
      const std::vector<int64_t> o2b = int_values(offset2bag);
      const std::vector<int64_t> sizes = int_values(bag_size);
      const std::vector<C> psw =
          per_sample_weights != nullptr ? values_of<C>(*per_sample_weights, cdt) : std::vector<C>{};
      if (o2b.size() != idx.size()) throw KernelError("embedding_bag_backward: offset2bag must have one bag per index");
      const RowGroups groups = group_by_row(idx, rows);
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, 64), [&](const tbb::blocked_range<int64_t>& r) {
        for (int64_t row = r.begin(); row < r.end(); ++row) {
          const int64_t first = groups.start[row];
          const int64_t last = groups.start[row + 1];
          if (row == padding_idx || first == last) continue;
          C* dst = result.data() + row * d;
          const C freq = scale_grad_by_freq ? C(1) / static_cast<C>(last - first) : C(1);
          for (int64_t k = first; k < last; ++k) {
            const int64_t i = groups.positions[k];
            const int64_t b = o2b[i];
            if (b < 0 || b >= bags) throw KernelError("embedding_bag_backward: offset2bag out of range");
            C s = freq;
            if (mode == BagMode::Mean && sizes[b] > 0) s /= static_cast<C>(sizes[b]);
            if (!psw.empty()) s *= psw[i];
            const C* src = g.data() + b * d;
            for (int64_t j = 0; j < d; ++j) dst[j] += s * src[j];
          }
        }
      });
    }
    copy(out, TensorView{result.data(), cdt, {rows, d}, {d, 1}});
  };
  if (cdt == DType::Float64) {
    run(TypeTag<double>{});
  } else {
    run(TypeTag<float>{});
  }
}

void embedding_bag_per_sample_weights_backward(const TensorView& out, const TensorView& grad,
                                               const TensorView& weight, const TensorView& indices,
                                               const TensorView& offset2bag, int64_t padding_idx) {
  if (weight.dim() != 2 || grad.dim() != 2 || grad.sizes[1] != weight.sizes[1]) {
    throw KernelError("embedding_bag_per_sample_weights_backward: grad " + shape_str(grad.sizes) + " and weight " +
                      shape_str(weight.sizes) + " must be [B, D] and [V, D]");
  }
  const std::vector<int64_t> idx = index_values(indices, weight.sizes[0], "embedding_bag_per_sample_weights_backward");
  const std::vector<int64_t> o2b = int_values(offset2bag);
  if (o2b.size() != idx.size() || out.numel() != static_cast<int64_t>(idx.size())) {
    throw KernelError("embedding_bag_per_sample_weights_backward: offset2bag and out must have one element per index");
  }
  const DType cdt = compute_dtype_of(out.dtype);
  const int64_t d = weight.sizes[1];
  const int64_t bags = grad.sizes[0];
  const auto run = [&](auto tag) {
    using C = typename decltype(tag)::type;
    const std::vector<C> g = values_of<C>(grad, cdt);
    const std::vector<C> w = values_of<C>(weight, cdt);
    std::vector<C> result(idx.size(), C(0));
    for (std::size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] == padding_idx) continue;
      if (o2b[i] < 0 || o2b[i] >= bags) throw KernelError("embedding_bag_per_sample_weights_backward: offset2bag out of range");
      C dot = 0;
      for (int64_t j = 0; j < d; ++j) dot += g[o2b[i] * d + j] * w[idx[i] * d + j];
      result[i] = dot;
    }
    if (!result.empty()) copy(out, TensorView{result.data(), cdt, out.sizes, contiguous_strides(out.sizes)});
  };
  if (cdt == DType::Float64) {
    run(TypeTag<double>{});
  } else {
    run(TypeTag<float>{});
  }
}

}  // namespace npu::kernels
