#include "kernels/select/unique.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

namespace {

void require_1d(const TensorView& t, int64_t at_least, DType dtype, const char* name) {
  if (t.dtype != dtype || t.dim() != 1 || t.sizes[0] < at_least) {
    throw KernelError(std::string("unique: ") + name + " must be a 1-D " + model::dtype_name(dtype) +
                      " tensor of at least " + std::to_string(at_least) + " elements, got " +
                      model::dtype_name(t.dtype) + " " + shape_str(t.sizes));
  }
}

}  // namespace

void check_unique(const TensorView& self, const UniqueOutputs& out) {
  if (model::is_complex(self.dtype)) {
    throw KernelError(std::string("unique: complex self is not supported (got ") + model::dtype_name(self.dtype) + ")");
  }
  require_1d(out.values, self.numel(), self.dtype, "valueOut");
  if (out.counts) require_1d(*out.counts, self.numel(), DType::Int64, "countsOut");
  if (out.inverse && (out.inverse->dtype != DType::Int64 || out.inverse->sizes != self.sizes)) {
    throw KernelError("unique: inverseOut must be an int64 tensor of self's shape " + shape_str(self.sizes) + ", got " +
                      model::dtype_name(out.inverse->dtype) + " " + shape_str(out.inverse->sizes));
  }
}

int64_t unique_sorted(const TensorView& self, const UniqueOutputs& out) {
  check_unique(self, out);
  const int64_t n = self.numel();
  if (n == 0) return 0;
  // A contiguous copy: the sort reads elements by linear index.
  const ScratchTensor dense(self.dtype, self.sizes);
  copy(dense.view(), self);
  return visit_dtype(self.dtype, [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw KernelError("unique: complex self is not supported");
    } else {
      using M = opmath_t<T>;
      const T* src = dense.view().template ptr<T>();
      auto value = [src](int64_t i) { return static_cast<M>(src[i]); };
      auto is_nan = [&](int64_t i) {
        if constexpr (is_floating_v<T>) return std::isnan(value(i));
        else return false;
      };
      std::vector<int64_t> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        if (is_nan(a) || is_nan(b)) return !is_nan(a) && is_nan(b);
        return value(a) < value(b);
      });
      T* values = out.values.template ptr<T>();
      const int64_t vstride = out.values.strides[0];
      int64_t count = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = order[static_cast<std::size_t>(k)];
        // A new value unless equal to the previous one (NaN never is).
        const bool fresh = k == 0 || !(value(i) == value(order[static_cast<std::size_t>(k - 1)]));
        if (fresh) {
          values[count * vstride] = src[i];
          if (out.counts) out.counts->template ptr<int64_t>()[count * out.counts->strides[0]] = 0;
          ++count;
        }
        if (out.counts) ++out.counts->template ptr<int64_t>()[(count - 1) * out.counts->strides[0]];
        if (out.inverse) out.inverse->template ptr<int64_t>()[offset_of(i, out.inverse->sizes, out.inverse->strides)] = count - 1;
      }
      return count;
    }
  });
}

}  // namespace npu::kernels
