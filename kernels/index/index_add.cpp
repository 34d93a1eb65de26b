// index_add: every position outside `dim` is one independent task (no two
// write the same element), walking the index entries in order.
#include <string>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"
#include "kernels/index/index_ops.h"
#include "kernels/index/index_table.h"

namespace npu::kernels {

namespace {

// `t`'s sizes and strides without `dim`.
void drop_dim(const TensorView& t, int64_t dim, Shape& sizes, Shape& strides) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim) continue;
    sizes.push_back(t.sizes[d]);
    strides.push_back(t.strides[d]);
  }
}

template <class T>
void add_rows(const TensorView& out, int64_t dim, const std::vector<int64_t>& index, const TensorView& source,
              const Scalar& alpha) {
  using M = opmath_t<T>;
  const M a = alpha.to<M>();
  Shape sizes, out_strides, src_strides, unused;
  drop_dim(out, dim, sizes, out_strides);
  drop_dim(source, dim, unused, src_strides);
  int64_t positions = 1;
  for (const int64_t s : sizes) positions *= s;
  const int64_t out_step = out.strides[dim];
  const int64_t src_step = source.strides[dim];
  T* o = out.ptr<T>();
  const T* s = source.ptr<const T>();
  const int64_t entries = static_cast<int64_t>(index.size());
  parallel_range(positions, grain_for(entries), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      T* dst = o + offset_of(p, sizes, out_strides);
      const T* src = s + offset_of(p, sizes, src_strides);
      for (int64_t i = 0; i < entries; ++i) {
        T& target = dst[index[i] * out_step];
        const T product = static_cast<T>(a * static_cast<M>(src[i * src_step]));
        target = static_cast<T>(static_cast<M>(target) + static_cast<M>(product));
      }
    }
  });
}

}  // namespace

void check_index_add(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
                     const TensorView& source) {
  if (self.dim() == 0 || dim < 0 || dim >= self.dim()) {
    throw KernelError("index_add: dim " + std::to_string(dim) + " is out of range for a " +
                      std::to_string(self.dim()) + "-dim self (0-dim tensors are passed as 1-element 1-dim ones)");
  }
  if (index.dim() != 1 || (index.dtype != DType::Int64 && index.dtype != DType::Int32)) {
    throw KernelError("index_add: index must be a 1-dim int64 or int32 tensor");
  }
  Shape expected = self.sizes;
  expected[dim] = index.sizes[0];
  if (source.sizes != expected) {
    throw KernelError("index_add: source must have shape " + shape_str(expected) + ", got " +
                      shape_str(source.sizes));
  }
  if (out.sizes != self.sizes || out.dtype != self.dtype || source.dtype != self.dtype) {
    throw KernelError("index_add: out, self and source must share self's dtype, and out self's shape");
  }
  if (model::is_complex(self.dtype) || self.dtype == DType::Bool) {
    throw KernelError(std::string("index_add: unsupported dtype ") + model::dtype_name(self.dtype));
  }
}

void index_add(const TensorView& out, const TensorView& self, int64_t dim, const TensorView& index,
               const TensorView& source, const Scalar& alpha) {
  check_index_add(out, self, dim, index, source);
  std::vector<int64_t> indices = read_indices(index);
  const int64_t size = self.sizes[dim];
  for (int64_t& k : indices) k = checked_index("index_add()", k, dim, size, false);
  if (out.data != self.data || out.strides != self.strides) copy(out, self);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T> || std::is_same_v<T, bool>) {
      throw KernelError("index_add: unsupported dtype");
    } else {
      add_rows<T>(out, dim, indices, source, alpha);
    }
  });
}

}  // namespace npu::kernels
