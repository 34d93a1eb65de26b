#include "kernels/shape/shape_ops.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "kernels/copy/copy.h"
#include "kernels/core/bool_bytes.h"
#include "kernels/core/dims.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/raw_element.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

bool skipped_in_cat(const Shape& s) { return s.size() == 1 && s[0] == 0; }

void require(bool ok, const std::string& message) {
  if (!ok) throw KernelError(message);
}

void require_shape(const char* op, const TensorView& out, const Shape& expected) {
  require(out.sizes == expected,
          std::string(op) + ": out has shape " + shape_str(out.sizes) + ", expected " + shape_str(expected));
}

// A contiguous row-major view of `t`'s elements: `t` itself when it is
// contiguous, else a copy kept in `holder`.
TensorView contiguous(const TensorView& t, std::optional<ScratchTensor>& holder) {
  if (t.is_contiguous()) return TensorView{t.data, t.dtype, t.sizes, contiguous_strides(t.sizes)};
  holder.emplace(t.dtype, t.sizes);
  copy(holder->view(), t);
  return holder->view();
}

TensorView flat(const TensorView& t) { return TensorView{t.data, t.dtype, {t.numel()}, {1}}; }

template <bool Lower>
void triangle(const TensorView& out, const TensorView& self, int64_t diagonal) {
  const char* op = Lower ? "tril" : "triu";
  require(self.dim() >= 2, std::string(op) + ": input tensor must have at least 2 dimensions");
  require_shape(op, out, self.sizes);
  require(out.dtype == self.dtype, std::string(op) + ": out dtype must match self");
  const int64_t rows = self.sizes[self.dim() - 2], cols = self.sizes[self.dim() - 1];
  const Shape batch(self.sizes.begin(), self.sizes.end() - 1);  // batch dims and the row dim
  const Shape so(out.strides.begin(), out.strides.end() - 1), ss(self.strides.begin(), self.strides.end() - 1);
  const int64_t oc = out.strides.back(), sc = self.strides.back();
  const bool in_place = out.data == self.data && out.strides == self.strides;
  // Beyond these bounds every row keeps all or nothing; clamping first keeps
  // row + diagonal + 1 from overflowing (diagonal = INT64_MAX, as CPU allows).
  diagonal = std::clamp<int64_t>(diagonal, -rows - 1, cols + 1);
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using R = typename decltype(tag)::type;
    R* op_data = out.ptr<R>();
    const R* sp = self.ptr<R>();
    parallel_range(self.numel() / std::max<int64_t>(cols, 1), grain_for(cols), [&](int64_t b, int64_t e) {
      for (int64_t line = b; line < e; ++line) {
        const int64_t row = line % rows;
        // Columns [keep_begin, keep_end) are kept, the rest zeroed.
        const int64_t edge = std::clamp<int64_t>(row + diagonal + (Lower ? 1 : 0), 0, cols);
        const int64_t keep_begin = Lower ? 0 : edge, keep_end = Lower ? edge : cols;
        R* o = op_data + offset_of(line, batch, so);
        const R* s = sp + offset_of(line, batch, ss);
        for (int64_t j = 0; j < cols; ++j) {
          if (j < keep_begin || j >= keep_end) {
            std::memset(static_cast<void*>(o + j * oc), 0, sizeof(R));
          } else if (!in_place) {
            o[j * oc] = s[j * sc];
          }
        }
      }
    });
  });
}

}  // namespace

Shape cat_shape(const std::vector<Shape>& inputs, int64_t dim) {
  const Shape* ref = nullptr;
  int64_t total = 0, d = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i];
    if (skipped_in_cat(s)) continue;
    require(!s.empty(), "cat(): zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
    if (ref == nullptr) {
      ref = &s;
      d = wrap_dim(dim, static_cast<int64_t>(s.size()));
    }
    require(s.size() == ref->size(), "cat(): Tensors must have same number of dimensions: got " +
                                         std::to_string(ref->size()) + " and " + std::to_string(s.size()));
    for (std::size_t k = 0; k < s.size(); ++k) {
      require(static_cast<int64_t>(k) == d || s[k] == (*ref)[k],
              "cat(): Sizes of tensors must match except in dimension " + std::to_string(d) + ". Expected size " +
                  std::to_string((*ref)[k]) + " but got size " + std::to_string(s[k]) + " for tensor number " +
                  std::to_string(i) + " in the list.");
    }
    total += s[d];
  }
  if (ref == nullptr) return inputs.empty() ? Shape{0} : inputs.front();
  Shape out = *ref;
  out[d] = total;
  return out;
}

void cat(const TensorView& out, const std::vector<TensorView>& inputs, int64_t dim) {
  std::vector<Shape> shapes;
  for (const TensorView& t : inputs) shapes.push_back(t.sizes);
  require_shape("cat()", out, cat_shape(shapes, dim));
  std::vector<std::pair<TensorView, TensorView>> parts;  // (slice of out, input)
  int64_t offset = 0;
  for (const TensorView& t : inputs) {
    if (skipped_in_cat(t.sizes)) continue;
    const int64_t d = wrap_dim(dim, t.dim());
    parts.emplace_back(narrow(out, d, offset, t.sizes[d]), t);
    offset += t.sizes[d];
  }
  parallel_range(static_cast<int64_t>(parts.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) copy(parts[i].first, parts[i].second);
  });
}

Shape stack_shape(const std::vector<Shape>& inputs, int64_t dim) {
  require(!inputs.empty(), "stack(): expects a non-empty TensorList");
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    require(inputs[i] == inputs[0], "stack(): expects each tensor to be equal size, but got " + shape_str(inputs[0]) +
                                        " at entry 0 and " + shape_str(inputs[i]) + " at entry " + std::to_string(i));
  }
  Shape out = inputs[0];
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(out.size()) + 1);
  out.insert(out.begin() + d, static_cast<int64_t>(inputs.size()));
  return out;
}

void stack(const TensorView& out, const std::vector<TensorView>& inputs, int64_t dim) {
  std::vector<Shape> shapes;
  for (const TensorView& t : inputs) shapes.push_back(t.sizes);
  require_shape("stack()", out, stack_shape(shapes, dim));
  const int64_t d = wrap_dim(dim, out.dim());
  parallel_range(static_cast<int64_t>(inputs.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) copy(select(out, d, i), inputs[i]);
  });
}

void flip(const TensorView& out, const TensorView& self, const std::vector<int64_t>& dims) {
  require_shape("flip()", out, self.sizes);
  const DimMask mask = dim_mask(dims, self.dim());
  TensorView reversed = self;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!dims.empty() && mask[d] && self.sizes[d] > 1) {
      reversed.data = static_cast<char*>(reversed.data) +
                      (self.sizes[d] - 1) * self.strides[d] * static_cast<int64_t>(self.itemsize());
      reversed.strides[d] = -self.strides[d];
    }
  }
  copy(out, reversed);
}

void roll(const TensorView& out, const TensorView& self, const std::vector<int64_t>& shifts,
          const std::vector<int64_t>& dims) {
  require_shape("roll()", out, self.sizes);
  if (dims.empty()) {
    require(shifts.size() == 1, "roll(): without dims, exactly one shift is expected");
    std::optional<ScratchTensor> src_holder, dst_holder;
    const TensorView src = flat(contiguous(self, src_holder));
    if (!out.is_contiguous()) dst_holder.emplace(out.dtype, out.sizes);
    const TensorView dst = flat(dst_holder ? dst_holder->view() : out);
    const int64_t n = src.sizes[0];
    if (n > 0) {
      const int64_t s = ((shifts[0] % n) + n) % n;
      copy(narrow(dst, 0, s, n - s), narrow(src, 0, 0, n - s));
      copy(narrow(dst, 0, 0, s), narrow(src, 0, n - s, s));
    }
    if (dst_holder) copy(out, TensorView{dst.data, out.dtype, out.sizes, contiguous_strides(out.sizes)});
    return;
  }
  require(shifts.size() == dims.size(), "roll(): shifts and dimensions must align. shifts: " +
                                            std::to_string(shifts.size()) + ", dims: " + std::to_string(dims.size()));
  std::map<int64_t, int64_t> shift_of;  // repeated dims roll repeatedly
  for (std::size_t i = 0; i < dims.size(); ++i) shift_of[wrap_dim(dims[i], self.dim())] += shifts[i];
  // Each rolled dim splits into two blocks that swap places: copy all 2^k
  // combinations of blocks.
  std::vector<std::pair<TensorView, TensorView>> parts{{out, self}};
  for (const auto& [d, shift] : shift_of) {
    const int64_t n = self.sizes[d];
    if (n == 0) return;
    const int64_t s = ((shift % n) + n) % n;
    std::vector<std::pair<TensorView, TensorView>> next;
    for (const auto& [o, i] : parts) {
      next.emplace_back(narrow(o, d, s, n - s), narrow(i, d, 0, n - s));
      next.emplace_back(narrow(o, d, 0, s), narrow(i, d, n - s, s));
    }
    parts = std::move(next);
  }
  for (const auto& [o, i] : parts) copy(o, i);
}

Shape repeat_shape(const Shape& self, const std::vector<int64_t>& repeats) {
  require(repeats.size() >= self.size(),
          "repeat(): Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  Shape out(repeats.size());
  const std::size_t lead = repeats.size() - self.size();
  for (std::size_t d = 0; d < repeats.size(); ++d) {
    require(repeats[d] >= 0, "repeat(): repeats can not be negative, got " + std::to_string(repeats[d]));
    out[d] = repeats[d] * (d < lead ? 1 : self[d - lead]);
  }
  return out;
}

void repeat(const TensorView& out, const TensorView& self, const std::vector<int64_t>& repeats) {
  require_shape("repeat()", out, repeat_shape(self.sizes, repeats));
  // Each out dim d of size r*s is viewed as (r, s): the source is then self
  // broadcast (stride 0) along every r.
  const std::size_t lead = repeats.size() - self.sizes.size();
  TensorView dst = out, src = self;
  dst.sizes.clear();
  dst.strides.clear();
  src.sizes.clear();
  src.strides.clear();
  for (std::size_t d = 0; d < repeats.size(); ++d) {
    const int64_t s = d < lead ? 1 : self.sizes[d - lead];
    dst.sizes.insert(dst.sizes.end(), {repeats[d], s});
    dst.strides.insert(dst.strides.end(), {s * out.strides[d], out.strides[d]});
    src.sizes.insert(src.sizes.end(), {repeats[d], s});
    src.strides.insert(src.strides.end(), {0, d < lead ? 0 : self.strides[d - lead]});
  }
  copy(dst, src);
}

// Bool elements come out as 0/1, as PyTorch CPU's tril/triu write them.
void tril(const TensorView& out, const TensorView& self, int64_t diagonal) {
  std::optional<BoolBytes> bools;
  triangle<true>(out, normalized_bools(self, bools), diagonal);
}

void triu(const TensorView& out, const TensorView& self, int64_t diagonal) {
  std::optional<BoolBytes> bools;
  triangle<false>(out, normalized_bools(self, bools), diagonal);
}

}  // namespace npu::kernels
