#include "kernels/sort/sort.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "kernels/core/bool_bytes.h"
#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels {

namespace {

// Strict total order on (key, position) pairs: by key (NaN largest), then
// by position. Distinct positions make every sort algorithm agree with a
// stable sort.
template <class K>
struct Before {
  bool descending;
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    if constexpr (std::is_floating_point_v<K>) {
      const bool na = std::isnan(a.first), nb = std::isnan(b.first);
      if (na != nb) return descending ? na : nb;
      if (na) return a.second < b.second;
    }
    if (a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

TensorView as_1d(const TensorView& t) {
  if (t.dim() != 0) return t;
  return TensorView{t.data, t.dtype, {1}, {1}};
}

// Lines along `dim` of self and of up to two outputs.
struct SortLines {
  Shape sizes;                       // every dim but `dim`
  std::array<Shape, 3> strides;      // self, values, indices
  std::array<int64_t, 3> step{};     // strides along dim
  int64_t length = 0, count = 1;
};

SortLines make_lines(const TensorView& self, const TensorView* values, const TensorView* indices, int64_t dim) {
  SortLines l;
  const std::array<const TensorView*, 3> views{&self, values, indices};
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == dim) continue;
    l.sizes.push_back(self.sizes[d]);
    l.count *= self.sizes[d];
    for (std::size_t k = 0; k < 3; ++k) l.strides[k].push_back(views[k] ? views[k]->strides[d] : 0);
  }
  for (std::size_t k = 0; k < 3; ++k) l.step[k] = views[k] ? views[k]->strides[dim] : 0;
  l.length = self.sizes[dim];
  return l;
}

void check_output(const char* op, const TensorView* out, const Shape& shape, DType dtype) {
  if (out == nullptr) return;
  if (out->sizes != shape || out->dtype != dtype) {
    throw KernelError(std::string(op) + ": expected an output of shape " + shape_str(shape) + " and dtype " +
                      model::dtype_name(dtype) + ", got " + shape_str(out->sizes) + " " +
                      model::dtype_name(out->dtype));
  }
}

// The key a value sorts by: every type whose values fit shares one key type,
// so the sorting algorithms are instantiated for five key types only.
template <class T>
using sort_key_t = std::conditional_t<
    is_floating_v<T>, opmath_t<T>,
    std::conditional_t<(sizeof(T) < 4 || std::is_same_v<T, int32_t>), int32_t,
                       std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>>>;

// Sorts every line and writes its first `keep` entries. A single long line
// is sorted by parallel_sort (same result: the order is total).
template <class T>
void sort_lines(const SortLines& l, const T* self, T* values, int64_t* indices, int64_t keep, bool descending,
                bool partial) {
  using K = sort_key_t<T>;
  using Pair = std::pair<K, int64_t>;
  const Before<K> before{descending};
  auto sort_line = [&](std::vector<Pair>& buf, const std::array<int64_t, 3>& off, bool parallel) {
    for (int64_t i = 0; i < l.length; ++i) buf[i] = {static_cast<K>(self[off[0] + i * l.step[0]]), i};
    if (partial) {
      std::partial_sort(buf.begin(), buf.begin() + keep, buf.end(), before);
    } else if (parallel) {
      tbb::parallel_sort(buf.begin(), buf.end(), before);
    } else {
      std::sort(buf.begin(), buf.end(), before);
    }
    for (int64_t i = 0; i < keep; ++i) {
      if (values != nullptr) values[off[1] + i * l.step[1]] = static_cast<T>(buf[i].first);
      if (indices != nullptr) indices[off[2] + i * l.step[2]] = buf[i].second;
    }
  };
  auto lines = [&](int64_t b, int64_t e, bool parallel) {
    std::vector<Pair> buf(l.length);
    const auto inner = [](const Shape& s) { return s.empty() ? int64_t{0} : s.back(); };
    const std::array<int64_t, 3> in{inner(l.strides[0]), inner(l.strides[1]), inner(l.strides[2])};
    for_each_run<3>(l.sizes, {&l.strides[0], &l.strides[1], &l.strides[2]}, b, e,
                    [&](const std::array<int64_t, 3>& off, int64_t, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) {
                        sort_line(buf, {off[0] + i * in[0], off[1] + i * in[1], off[2] + i * in[2]}, parallel);
                      }
                    });
  };
  const int64_t workers = tbb::this_task_arena::max_concurrency();
  if (l.count >= 2 * workers || l.length < 65536) {
    parallel_range(l.count, grain_for(l.length * 8), [&](int64_t b, int64_t e) { lines(b, e, false); });
  } else {
    lines(0, l.count, true);
  }
}

template <class F>
void visit_sortable(const char* op, DType dtype, F&& f) {
  if (model::is_complex(dtype)) throw KernelError(std::string(op) + ": complex tensors are not supported");
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) f(tag);
  });
}

}  // namespace

void check_sort(const TensorView* values, const TensorView* indices, const TensorView& self, int64_t dim) {
  wrap_dim(dim, self.dim());
  if (model::is_complex(self.dtype)) throw KernelError("sort: complex tensors are not supported");
  check_output("sort", values, self.sizes, self.dtype);
  check_output("sort", indices, self.sizes, DType::Int64);
}

void sort(const TensorView* values, const TensorView* indices, const TensorView& self, int64_t dim, bool descending,
          bool /*stable*/) {
  check_sort(values, indices, self, dim);
  std::optional<BoolBytes> bools;
  const TensorView s = as_1d(normalized_bools(self, bools));
  const int64_t d = wrap_dim(dim, self.dim());
  const TensorView v = values ? as_1d(*values) : TensorView{}, ix = indices ? as_1d(*indices) : TensorView{};
  const SortLines lines = make_lines(s, values ? &v : nullptr, indices ? &ix : nullptr, d);
  visit_sortable("sort", self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    sort_lines<T>(lines, s.ptr<T>(), values ? v.ptr<T>() : nullptr, indices ? ix.ptr<int64_t>() : nullptr,
                  lines.length, descending, false);
  });
}

void check_topk(const TensorView& values, const TensorView& indices, const TensorView& self, int64_t k, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes[d];
  if (k < 0 || k > size) {
    throw KernelError("topk(): selected index k (" + std::to_string(k) + ") out of range for dimension " +
                      std::to_string(d) + " with size " + std::to_string(size));
  }
  if (model::is_complex(self.dtype)) throw KernelError("topk: complex tensors are not supported");
  Shape shape = self.sizes;
  if (!shape.empty()) shape[d] = k;
  check_output("topk", &values, shape, self.dtype);
  check_output("topk", &indices, shape, DType::Int64);
}

void topk(const TensorView& values, const TensorView& indices, const TensorView& self, int64_t k, int64_t dim,
          bool largest, bool /*sorted*/) {
  check_topk(values, indices, self, k, dim);
  std::optional<BoolBytes> bools;
  const TensorView s = as_1d(normalized_bools(self, bools)), v = as_1d(values), ix = as_1d(indices);
  const SortLines lines = make_lines(s, &v, &ix, wrap_dim(dim, self.dim()));
  visit_sortable("topk", self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    sort_lines<T>(lines, s.ptr<T>(), v.ptr<T>(), ix.ptr<int64_t>(), k, largest, true);
  });
}

}  // namespace npu::kernels
