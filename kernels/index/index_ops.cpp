#include "kernels/index/index_ops.h"

#include <algorithm>
#include <optional>
#include <string>

#include "kernels/core/bool_bytes.h"
#include "kernels/core/dims.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/raw_element.h"
#include "kernels/core/scratch.h"
#include "kernels/index/index_table.h"
#include "kernels/reduce/reduce_ops.h"

namespace npu::kernels {

namespace {

// A 0-dim tensor indexes like a 1-element 1-D one.
TensorView as_1d(const TensorView& t) {
  if (t.dim() != 0) return t;
  TensorView v = t;
  v.sizes = {1};
  v.strides = {1};
  return v;
}

// The message is built only on failure: these checks run on every launch.
void require(bool ok, const char* message) {
  if (!ok) throw KernelError(message);
}
template <class Message>
void require(bool ok, Message&& message) {
  if (!ok) throw KernelError(message());
}

void require_same_dtype(const char* op, const TensorView& out, const TensorView& self) {
  require(out.dtype == self.dtype, [&] {
    return std::string(op) + ": expected out dtype " + model::dtype_name(self.dtype) + ", got " +
           model::dtype_name(out.dtype);
  });
}

// index.size(k) <= bound.size(k) for every k (except `skip`), same rank.
void require_within(const char* op, const TensorView& index, const TensorView& bound, int64_t skip, const char* name) {
  require(index.dim() == bound.dim(), [&] {
    return std::string(op) + ": index tensor must have the same number of dimensions as " + name + " tensor";
  });
  for (int64_t k = 0; k < index.dim(); ++k) {
    require(k == skip || index.sizes[k] <= bound.sizes[k], [&] {
      return std::string(op) + ": size does not match at dimension " + std::to_string(k) + ": expected index " +
             shape_str(index.sizes) + " to be no larger than " + name + " " + shape_str(bound.sizes) +
             (skip >= 0 ? " apart from dimension " + std::to_string(skip) : std::string());
    });
  }
}

void require_index_dtype(const char* op, const TensorView& index) {
  require(model::is_integral(index.dtype), [&] {
    return std::string(op) + ": index must be an integer tensor, got " + model::dtype_name(index.dtype);
  });
}

Shape without(const Shape& s, int64_t d) {
  Shape r = s;
  r.erase(r.begin() + d);
  return r;
}

// Scatter iterates lines: every position of index except along `dim`; a line
// runs along `dim`. Lines never share targets, so they run in parallel.
struct ScatterGeometry {
  Shape line_sizes;
  std::array<Shape, 3> line_strides;  // out, index, src
  int64_t length, out_step, index_step, src_step, target_size, dim;
  bool track, include_self;  // count contributions per target (mean, !include_self)
};

// One line's typed work; the line walk below is compiled once.
class ScatterLine {
 public:
  virtual ~ScatterLine() = default;
  // `count` has target_size zeros when g.track, and is left that way.
  virtual void apply(int64_t out, const int64_t* index, int64_t src, int64_t* count) const = 0;
};

template <class T, class Combine, class Finish>
class TypedScatterLine final : public ScatterLine {
 public:
  TypedScatterLine(const ScatterGeometry& g, T* out, const T* src) : g_(g), out_(out), src_(src) {}
  void apply(int64_t out, const int64_t* ip, int64_t src, int64_t* count) const override {
    const Combine combine;
    T* o = out_ + out;
    const T* sp = src_ + src;
    for (int64_t j = 0; j < g_.length; ++j) {
      const int64_t t = checked_index("scatter()", ip[j * g_.index_step], g_.dim, g_.target_size, false);
      T& dst = o[t * g_.out_step];
      const T& v = sp[j * g_.src_step];
      if (!g_.track) {
        dst = combine(dst, v);
        continue;
      }
      dst = (!g_.include_self && count[t] == 0) ? v : combine(dst, v);
      ++count[t];
    }
    if (!g_.track) return;
    // Finish every hit target once, and reset its count for the next line.
    const Finish finish;
    for (int64_t j = 0; j < g_.length; ++j) {
      const int64_t t = ip[j * g_.index_step];
      if (count[t] == 0) continue;
      o[t * g_.out_step] = finish(o[t * g_.out_step], count[t] + (g_.include_self ? 1 : 0));
      count[t] = 0;
    }
  }

 private:
  const ScatterGeometry& g_;
  T* out_;
  const T* src_;
};

void scatter_lines(const ScatterGeometry& g, const int64_t* index, const ScatterLine& line) {
  int64_t lines = 1;
  for (const int64_t s : g.line_sizes) lines *= s;
  const auto inner = [](const Shape& s) { return s.empty() ? int64_t{0} : s.back(); };
  const int64_t so = inner(g.line_strides[0]), si = inner(g.line_strides[1]), ss = inner(g.line_strides[2]);
  parallel_range(lines, grain_for(g.length), [&](int64_t lb, int64_t le) {
    std::vector<int64_t> count(g.track ? g.target_size : 0);
    for_each_run<3>(g.line_sizes, {&g.line_strides[0], &g.line_strides[1], &g.line_strides[2]}, lb, le,
                    [&](const std::array<int64_t, 3>& off, int64_t, int64_t n) {
                      for (int64_t l = 0; l < n; ++l) {
                        line.apply(off[0] + l * so, index + off[1] + l * si, off[2] + l * ss, count.data());
                      }
                    });
  });
}

template <class T, class Combine, class Finish>
void scatter_typed(const ScatterGeometry& g, const int64_t* index, T* out, const T* src) {
  scatter_lines(g, index, TypedScatterLine<T, Combine, Finish>(g, out, src));
}

// The value-combining rules of scatter_reduce, in op-math precision.
struct Assign {
  template <class T>
  T operator()(const T&, const T& v) const { return v; }
};
struct Add {
  template <class T>
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else return T(opmath_t<T>(a) + opmath_t<T>(b));
  }
};
struct Multiply {
  template <class T>
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return T(opmath_t<T>(a) * opmath_t<T>(b));
  }
};
template <bool IsMax>
struct Extreme {
  template <class T>
  T operator()(const T& a, const T& b) const {
    if constexpr (is_complex_v<T>) {
      throw KernelError("scatter_reduce(): amax/amin do not support complex tensors");
    } else {
      const opmath_t<T> x(a), y(b);
      return (is_nan_value(y) || (IsMax ? y > x : y < x)) ? b : a;
    }
  }
};
struct Keep {
  template <class T>
  T operator()(const T& a, int64_t) const { return a; }
};
struct Average {
  template <class T>
  T operator()(const T& a, int64_t count) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a;
    } else if constexpr (std::is_integral_v<T>) {
      const auto c = static_cast<T>(count);
      T q = a / c;
      if constexpr (std::is_signed_v<T>) {
        if (a % c != 0 && a < 0) --q;  // floor division, as torch.scatter_reduce
      }
      return q;
    } else {
      using M = opmath_t<T>;
      return T(M(a) / M(static_cast<float>(count)));
    }
  }
};

}  // namespace

void check_index_select(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index) {
  const int64_t d = wrap_dim(dim, self.dim());
  require(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  require_index_dtype("index_select()", index);
  require_same_dtype("index_select()", out, self);
  // out is self's shape with index.numel() entries along dim; 0-dim tensors
  // count as shape [1]. Compared in place: this runs on every launch.
  const int64_t entries = index.numel();
  const int64_t out_rank = std::max<int64_t>(out.dim(), 1), self_rank = std::max<int64_t>(self.dim(), 1);
  bool ok = out_rank == self_rank;
  for (int64_t k = 0; ok && k < self_rank; ++k) {
    const int64_t want = k == d ? entries : self.sizes[k];
    ok = (out.dim() == 0 ? 1 : out.sizes[k]) == want;
  }
  if (!ok) {
    Shape expected = as_1d(self).sizes;
    expected[d] = entries;
    throw KernelError("index_select(): out has shape " + shape_str(as_1d(out).sizes) + ", expected " +
                      shape_str(expected));
  }
}

void check_gather(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index) {
  const TensorView ix = as_1d(index), o = as_1d(out);
  require_within("gather()", ix, as_1d(self), wrap_dim(dim, self.dim()), "input");
  require_index_dtype("gather()", index);
  require_same_dtype("gather()", out, self);
  require(o.sizes == ix.sizes,
          [&] { return "gather(): out has shape " + shape_str(o.sizes) + ", expected " + shape_str(ix.sizes); });
}

void gather(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index) {
  check_gather(out, self, dim, index);
  std::optional<BoolBytes> bools;  // bool elements come out as 0/1, as on PyTorch CPU
  const TensorView s = as_1d(normalized_bools(self, bools)), ix = as_1d(index), o = as_1d(out);
  const int64_t d = wrap_dim(dim, self.dim());
  std::optional<ScratchTensor> holder;
  const TensorView iv = input_as(ix, DType::Int64, holder);
  Shape src_strides = s.strides;
  src_strides[d] = 0;  // the index supplies the coordinate along dim
  const int64_t step = s.strides[d], size = s.sizes[d];
  const int64_t so = o.strides.back(), si = iv.strides.back(), ss = src_strides.back();
  visit_itemsize(s.itemsize(), [&](auto tag) {
    using R = typename decltype(tag)::type;
    R* op = o.ptr<R>();
    const R* sp = s.ptr<R>();
    const int64_t* ip = iv.ptr<int64_t>();
    parallel_range(ix.numel(), grain_for(1), [&](int64_t b, int64_t e) {
      for_each_run<3>(ix.sizes, {&o.strides, &iv.strides, &src_strides}, b, e,
                      [&](const std::array<int64_t, 3>& off, int64_t, int64_t n) {
                        for (int64_t i = 0; i < n; ++i) {
                          const int64_t k = checked_index("gather()", ip[off[1] + i * si], d, size, false);
                          op[off[0] + i * so] = sp[off[2] + i * ss + k * step];
                        }
                      });
    });
  });
}

void check_scatter(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
                   const TensorView& src, ScatterReduce reduce) {
  const int64_t d = wrap_dim(dim, self.dim());
  require(out.sizes == self.sizes,
          [&] { return "scatter(): out has shape " + shape_str(out.sizes) + ", expected " + shape_str(self.sizes); });
  require_same_dtype("scatter()", out, self);
  require_index_dtype("scatter()", index);
  require_within("scatter()", as_1d(index), as_1d(self), d, "self");
  if (src.dim() != 0) require_within("scatter()", as_1d(index), src, -1, "src");
  const bool ordered = reduce != ScatterReduce::Amax && reduce != ScatterReduce::Amin;
  require(ordered || !model::is_complex(self.dtype), "scatter_reduce(): amax/amin do not support complex tensors");
}

void scatter(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
             const TensorView& src, ScatterReduce reduce, bool include_self) {
  check_scatter(out, self, dim, index, src, reduce);
  const TensorView s = as_1d(self), ix = as_1d(index), o = as_1d(out);
  const int64_t d = wrap_dim(dim, self.dim());
  std::optional<ScratchTensor> src_holder, index_holder;
  TensorView sv = input_as(src, out.dtype, src_holder);
  if (src.dim() == 0) {  // a scalar: broadcast after converting its one element
    sv.sizes = ix.sizes;
    sv.strides.assign(ix.dim(), 0);
  }
  const TensorView iv = input_as(ix, DType::Int64, index_holder);
  if (o.data != s.data || o.strides != s.strides) copy(o, s);
  if (ix.numel() == 0) return;
  const ScatterGeometry g{without(ix.sizes, d),
                          {without(o.strides, d), without(iv.strides, d), without(sv.strides, d)},
                          ix.sizes[d],
                          o.strides[d],
                          iv.strides[d],
                          sv.strides[d],
                          o.sizes[d],
                          d,
                          reduce == ScatterReduce::Mean || !include_self,
                          include_self};
  const int64_t* ip = iv.ptr<int64_t>();
  if (reduce == ScatterReduce::None) {
    visit_itemsize(o.itemsize(), [&](auto tag) {
      using R = typename decltype(tag)::type;
      scatter_typed<R, Assign, Keep>(g, ip, o.ptr<R>(), sv.ptr<R>());
    });
    return;
  }
  visit_dtype(o.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* op = o.ptr<T>();
    const T* sp = sv.ptr<T>();
    switch (reduce) {
      case ScatterReduce::Sum: scatter_typed<T, Add, Keep>(g, ip, op, sp); break;
      case ScatterReduce::Prod: scatter_typed<T, Multiply, Keep>(g, ip, op, sp); break;
      case ScatterReduce::Mean: scatter_typed<T, Add, Average>(g, ip, op, sp); break;
      case ScatterReduce::Amax: scatter_typed<T, Extreme<true>, Keep>(g, ip, op, sp); break;
      case ScatterReduce::Amin: scatter_typed<T, Extreme<false>, Keep>(g, ip, op, sp); break;
      case ScatterReduce::None: break;
    }
  });
}

void check_take(const TensorView& out, const TensorView& self, const TensorView& index) {
  require_same_dtype("take()", out, self);
  require_index_dtype("take()", index);
  require(out.sizes == index.sizes,
          [&] { return "take(): out has shape " + shape_str(out.sizes) + ", expected " + shape_str(index.sizes); });
}

void take(const TensorView& out, const TensorView& self, const TensorView& index) {
  check_take(out, self, index);
  const std::vector<int64_t> idx = read_indices(index);
  const int64_t n = self.numel();
  std::optional<BoolBytes> bools;  // bool elements come out as 0/1, as on PyTorch CPU
  const void* src = normalized_bools(self, bools).data;
  IndexedCopy c{out.data, src, self.itemsize(), element_offsets(out.sizes, out.strides),
                std::vector<int64_t>(idx.size()), {}, {}, {}};
  parallel_range(static_cast<int64_t>(idx.size()), grain_for(8), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      c.src_table[i] = offset_of(checked_index("take()", idx[i], 0, n, true), self.sizes, self.strides);
    }
  });
  run_indexed_copy(c);
}

}  // namespace npu::kernels
