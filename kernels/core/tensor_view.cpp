#include "kernels/core/tensor_view.h"

#include <sstream>

namespace npu::kernels {

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  return n;
}

bool TensorView::is_contiguous() const {
  // As in PyTorch: an empty tensor is contiguous whatever its strides (an
  // empty tensor's strides are computed with each size taken as at least 1).
  if (numel() == 0) return true;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw KernelError("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorView broadcast_to(const TensorView& t, const Shape& shape) {
  if (t.sizes == shape) return t;  // nothing to expand (the common case)
  if (t.sizes.size() > shape.size()) {
    throw KernelError("cannot broadcast " + shape_str(t.sizes) + " to " + shape_str(shape));
  }
  TensorView out = t;
  out.sizes = shape;
  out.strides.assign(shape.size(), 0);
  const std::size_t lead = shape.size() - t.sizes.size();
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    const int64_t s = t.sizes[i];
    if (s == shape[lead + i]) {
      out.strides[lead + i] = t.strides[i];
    } else if (s != 1) {
      throw KernelError("cannot broadcast " + shape_str(t.sizes) + " to " + shape_str(shape));
    }
  }
  return out;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

}  // namespace npu::kernels
