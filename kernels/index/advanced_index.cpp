#include "kernels/index/advanced_index.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <numeric>
#include <string>

#include "kernels/core/elementwise.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/raw_element.h"
#include "kernels/core/scratch.h"
#include "kernels/index/index_table.h"

namespace npu::kernels {

namespace {

bool is_mask(DType dt) { return dt == DType::Bool || dt == DType::UInt8; }

int64_t numel_of(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()); }

// An entry of the index list, placed: the first self dim it indexes.
struct Entry {
  int64_t dim;
  const TensorView* tensor;
};

// Checks the list's structure (no data access) and places its entries.
std::vector<Entry> place_entries(const Shape& self, const IndexList& indices) {
  const auto rank = static_cast<int64_t>(self.size());
  std::vector<Entry> entries;
  int64_t d = 0;
  for (const auto& e : indices) {
    if (!e) {
      ++d;
      continue;
    }
    if (model::is_floating_point(e->dtype) || model::is_complex(e->dtype)) {
      throw KernelError(std::string("tensors used as indices must be long, int, byte or bool tensors, got ") +
                        model::dtype_name(e->dtype));
    }
    const bool mask = is_mask(e->dtype);
    if (mask && e->dim() == 0) throw KernelError("index: 0-dim boolean masks are not supported");
    const int64_t consumed = mask ? e->dim() : 1;
    if (d + consumed > rank) {
      throw KernelError("too many indices for tensor of dimension " + std::to_string(rank));
    }
    for (int64_t k = 0; mask && k < consumed; ++k) {
      if (e->sizes[k] != self[d + k]) {
        throw KernelError("The shape of the mask " + shape_str(e->sizes) + " at index " + std::to_string(k) +
                          " does not match the shape of the indexed tensor " + shape_str(self) + " at index " +
                          std::to_string(d + k));
      }
    }
    entries.push_back({d, &*e});
    d += consumed;
  }
  if (entries.empty() && !indices.empty()) throw KernelError("index: at least one index tensor is required");
  return entries;
}

// Where the broadcast index dims and the untouched ("rest") dims of self go
// in the result.
struct Layout {
  Shape bshape, result;
  int64_t bpos = 0;
  std::vector<int64_t> rest_dims, rest_pos;  // self dims, their result dims
};

Layout make_layout(const Shape& self, const std::vector<int64_t>& dims, const std::vector<Shape>& shapes) {
  Layout l;
  l.bshape = shapes.front();
  for (const Shape& s : shapes) l.bshape = broadcast_shapes(l.bshape, s);
  const int64_t first = dims.front(), last = dims.back();
  const bool adjacent = last - first + 1 == static_cast<int64_t>(dims.size());
  l.bpos = adjacent ? first : 0;
  const auto nb = static_cast<int64_t>(l.bshape.size());
  for (int64_t d = 0; d < static_cast<int64_t>(self.size()); ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    l.rest_dims.push_back(d);
    l.rest_pos.push_back(!adjacent ? nb + static_cast<int64_t>(l.rest_pos.size()) : d < first ? d : d - (last - first + 1) + nb);
  }
  l.result.assign(self.size() - dims.size() + nb, 0);
  for (int64_t k = 0; k < nb; ++k) l.result[l.bpos + k] = l.bshape[k];
  for (std::size_t k = 0; k < l.rest_dims.size(); ++k) l.result[l.rest_pos[k]] = self[l.rest_dims[k]];
  return l;
}

// Index tensors resolved at run time: masks expanded into coordinate lists,
// everything as int64 views, with the result layout and the per-entry
// element offsets into self.
class Resolved {
 public:
  Resolved(const TensorView& self, const IndexList& indices) {
    std::vector<int64_t> dims;
    std::vector<TensorView> views;
    for (const Entry& e : place_entries(self.sizes, indices)) {
      if (!is_mask(e.tensor->dtype)) {
        std::optional<ScratchTensor> h;
        views.push_back(input_as(*e.tensor, DType::Int64, h));
        if (h) holders_.push_back(std::move(*h));
        dims.push_back(e.dim);
        continue;
      }
      const int64_t k = e.tensor->dim();
      ScratchTensor& coords = holders_.emplace_back(DType::Int64, Shape{e.tensor->numel(), k});
      const int64_t count = nonzero(coords.view(), *e.tensor);
      for (int64_t j = 0; j < k; ++j) {
        views.push_back(TensorView{coords.view().ptr<int64_t>() + j, DType::Int64, {count}, {k}});
        dims.push_back(e.dim + j);
      }
    }
    std::vector<Shape> shapes;
    for (const TensorView& v : views) shapes.push_back(v.sizes);
    layout_ = make_layout(self.sizes, dims, shapes);
    build_self_table(self, dims, views);
  }

  const Layout& layout() const { return layout_; }
  const std::vector<int64_t>& self_table() const { return self_table_; }
  Shape rest_sizes(const TensorView& self) const { return pick(self.sizes, layout_.rest_dims); }
  Shape rest_strides_self(const TensorView& self) const { return pick(self.strides, layout_.rest_dims); }
  Shape rest_strides_result(const TensorView& r) const { return pick(r.strides, layout_.rest_pos); }
  // Offsets of the broadcast index positions in a result-shaped view.
  std::vector<int64_t> result_table(const TensorView& r) const {
    const Shape strides(r.strides.begin() + layout_.bpos, r.strides.begin() + layout_.bpos + layout_.bshape.size());
    return element_offsets(layout_.bshape, strides);
  }

 private:
  static Shape pick(const Shape& s, const std::vector<int64_t>& at) {
    Shape r;
    for (const int64_t d : at) r.push_back(s[d]);
    return r;
  }

  void build_self_table(const TensorView& self, const std::vector<int64_t>& dims, const std::vector<TensorView>& views) {
    const Shape& b = layout_.bshape;
    self_table_.assign(numel_of(b), 0);
    for (std::size_t k = 0; k < views.size(); ++k) {
      const TensorView v = broadcast_to(views[k], b);
      const int64_t* data = v.ptr<int64_t>();
      const int64_t dim = dims[k], size = self.sizes[dim], stride = self.strides[dim];
      const int64_t inner = v.strides.empty() ? 0 : v.strides.back();
      parallel_range(static_cast<int64_t>(self_table_.size()), grain_for(4), [&](int64_t lo, int64_t hi) {
        for_each_run<1>(b, {&v.strides}, lo, hi, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            self_table_[pos + i] += checked_index("index", data[off[0] + i * inner], dim, size, true) * stride;
          }
        });
      });
    }
  }

  std::deque<ScratchTensor> holders_;
  Layout layout_;
  std::vector<int64_t> self_table_;
};

// Visits [0, total) in fixed chunks twice, count(b, e) -> n then
// emit(b, e, first_slot), so parallel chunks write disjoint output slots in
// order. Returns the total count.
template <class Count, class Emit>
int64_t compact(int64_t total, const Count& count, const Emit& emit) {
  constexpr int64_t kChunk = 65536;
  const int64_t chunks = (total + kChunk - 1) / kChunk;
  std::vector<int64_t> start(chunks + 1, 0);
  parallel_range(chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) start[c + 1] = count(c * kChunk, std::min(total, (c + 1) * kChunk));
  });
  std::partial_sum(start.begin(), start.end(), start.begin());
  parallel_range(chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) emit(c * kChunk, std::min(total, (c + 1) * kChunk), start[c]);
  });
  return start[chunks];
}

void require_mask_dtype(const char* op, const TensorView& mask) {
  if (!is_mask(mask.dtype)) {
    throw KernelError(std::string(op) + ": expected a bool (or uint8) mask, got " + model::dtype_name(mask.dtype));
  }
}

}  // namespace

std::optional<Shape> index_result_shape(const Shape& self, const IndexList& indices) {
  std::vector<int64_t> dims;
  std::vector<Shape> shapes;
  for (const Entry& e : place_entries(self, indices)) {
    if (is_mask(e.tensor->dtype)) return std::nullopt;
    dims.push_back(e.dim);
    shapes.push_back(e.tensor->sizes);
  }
  if (dims.empty()) return self;
  return make_layout(self, dims, shapes).result;
}

void index(const TensorView& out, const TensorView& self, const IndexList& indices) {
  if (out.dtype != self.dtype) throw KernelError("index: out dtype must match self");
  const Resolved r(self, indices);
  if (out.sizes != r.layout().result) {
    throw KernelError("index: out has shape " + shape_str(out.sizes) + ", expected " + shape_str(r.layout().result));
  }
  run_indexed_copy({out.data, self.data, self.itemsize(), r.result_table(out), r.self_table(), r.rest_sizes(self),
                    r.rest_strides_result(out), r.rest_strides_self(self)});
}

void index_put(const TensorView& self, const IndexList& indices, const TensorView& values, bool accumulate) {
  const Resolved r(self, indices);
  std::optional<ScratchTensor> holder;
  const TensorView v = broadcast_to(input_as(values, self.dtype, holder), r.layout().result);
  const std::vector<int64_t> vtable = r.result_table(v);
  const Shape rest = r.rest_sizes(self), rest_self = r.rest_strides_self(self), rest_v = r.rest_strides_result(v);
  if (!accumulate) {
    run_indexed_copy({self.data, v.data, self.itemsize(), r.self_table(), vtable, rest, rest_self, rest_v});
    return;
  }
  // Repeated indices must all add up: every worker owns a slice of the rest
  // space and applies all table entries to it in order.
  const std::vector<int64_t>& stable = r.self_table();
  const auto entries = static_cast<int64_t>(stable.size());
  const int64_t s0 = rest_self.empty() ? 0 : rest_self.back(), s1 = rest_v.empty() ? 0 : rest_v.back();
  visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = self.ptr<T>();
    const T* src = v.ptr<T>();
    parallel_range(numel_of(rest), grain_for(entries), [&](int64_t rb, int64_t re) {
      for (int64_t b = 0; b < entries; ++b) {
        for_each_run<2>(rest, {&rest_self, &rest_v}, rb, re, [&](const std::array<int64_t, 2>& off, int64_t, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            T& d = dst[stable[b] + off[0] + i * s0];
            const T& x = src[vtable[b] + off[1] + i * s1];
            if constexpr (std::is_same_v<T, bool>) {
              d = d || x;
            } else {
              d = T(opmath_t<T>(d) + opmath_t<T>(x));
            }
          }
        });
      }
    });
  });
}

void masked_fill(const TensorView& self, const TensorView& mask, const Scalar& value) {
  require_mask_dtype("masked_fill", mask);
  const TensorView m = broadcast_to(mask, self.sizes);
  Bytes16 bytes{};  // the value converted to self's dtype, then moved as raw bytes
  visit_dtype(self.dtype, [&](auto tag) {
    const auto v = value.to<typename decltype(tag)::type>();
    std::memcpy(&bytes, &v, sizeof v);
  });
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using R = typename decltype(tag)::type;
    R v;
    std::memcpy(&v, &bytes, sizeof v);
    strided_loop<2>(make_operands<2>({&self, &m}), [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        if (*reinterpret_cast<const uint8_t*>(p[1] + i * s[1]) != 0) *reinterpret_cast<R*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

int64_t masked_select(const TensorView& out, const TensorView& self, const TensorView& mask) {
  require_mask_dtype("masked_select", mask);
  const Shape shape = broadcast_shapes(self.sizes, mask.sizes);
  const int64_t total = numel_of(shape);
  if (out.dtype != self.dtype || out.dim() != 1 || out.sizes[0] < total) {
    throw KernelError("masked_select: out must be a 1-D " + std::string(model::dtype_name(self.dtype)) +
                      " tensor of at least " + std::to_string(total) + " elements, got " + shape_str(out.sizes));
  }
  const TensorView s = broadcast_to(self, shape), m = broadcast_to(mask, shape);
  const uint8_t* mp = m.ptr<uint8_t>();
  const int64_t ms = m.strides.empty() ? 0 : m.strides.back(), ss = s.strides.empty() ? 0 : s.strides.back();
  const int64_t os = out.strides[0];
  return visit_itemsize(self.itemsize(), [&](auto tag) {
    using R = typename decltype(tag)::type;
    const R* sp = s.ptr<R>();
    R* op = out.ptr<R>();
    return compact(
        total,
        [&](int64_t b, int64_t e) {
          int64_t n = 0;
          for_each_run<1>(shape, {&m.strides}, b, e, [&](const std::array<int64_t, 1>& off, int64_t, int64_t len) {
            for (int64_t i = 0; i < len; ++i) n += mp[off[0] + i * ms] != 0;
          });
          return n;
        },
        [&](int64_t b, int64_t e, int64_t k) {
          for_each_run<2>(shape, {&s.strides, &m.strides}, b, e, [&](const std::array<int64_t, 2>& off, int64_t, int64_t len) {
            for (int64_t i = 0; i < len; ++i) {
              if (mp[off[1] + i * ms] != 0) op[os * k++] = sp[off[0] + i * ss];
            }
          });
        });
  });
}

int64_t nonzero(const TensorView& out, const TensorView& self) {
  const int64_t total = self.numel(), rank = self.dim();
  if (out.dtype != DType::Int64 || out.dim() != 2 || out.sizes[0] < total || out.sizes[1] != rank) {
    throw KernelError("nonzero: out must be an int64 tensor of shape [>= " + std::to_string(total) + ", " +
                      std::to_string(rank) + "], got " + shape_str(out.sizes));
  }
  int64_t* op = out.ptr<int64_t>();
  const int64_t row = out.strides[0], col = out.strides[1];
  // Truthiness by conversion to bool (NaN is true, -0.0 false), so the
  // compaction below exists once instead of once per dtype.
  std::optional<ScratchTensor> holder;
  const TensorView truth = input_as(self, DType::Bool, holder);
  const uint8_t* tp = truth.ptr<uint8_t>();
  const int64_t inner = truth.strides.empty() ? 0 : truth.strides.back();
  // Calls f(linear position) for each true element in [b, e).
  auto each_true = [&](int64_t b, int64_t e, const auto& f) {
    for_each_run<1>(truth.sizes, {&truth.strides}, b, e, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        if (tp[off[0] + i * inner] != 0) f(pos + i);
      }
    });
  };
  return compact(
      total,
      [&](int64_t b, int64_t e) {
        int64_t n = 0;
        each_true(b, e, [&](int64_t) { ++n; });
        return n;
      },
      [&](int64_t b, int64_t e, int64_t k) {
        each_true(b, e, [&](int64_t pos) {
          for (int64_t d = rank - 1; d >= 0; --d) {
            op[k * row + d * col] = pos % self.sizes[d];
            pos /= self.sizes[d];
          }
          ++k;
        });
      });
}

}  // namespace npu::kernels
