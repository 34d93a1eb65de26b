// Operands staged for kernels that walk rows of a fixed layout (softmax,
// batch norm, losses): inputs as contiguous tensors of the compute dtype,
// results computed contiguously and then written into the caller's view.
#pragma once

#include <optional>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

// The dtype reduced floats and float compute in (float), double in double,
// as PyTorch's CPU kernels do.
inline DType compute_dtype_of(DType d) { return d == DType::Float64 ? DType::Float64 : DType::Float32; }

// `v` as stored in a tensor of floating `dtype` and read back: where CPU's
// kernels round an intermediate to the element type, kernels that compute
// wider round there too.
inline double rounded_to(DType dtype, double v) {
  switch (dtype) {
    case DType::Float16: return static_cast<float>(half(static_cast<float>(v)));
    case DType::BFloat16: return static_cast<float>(bfloat16(static_cast<float>(v)));
    case DType::Float32: return static_cast<float>(v);
    default: return v;
  }
}

// `in` itself when contiguous and of `dtype`, else a converted contiguous
// copy kept alive by `holder`.
inline TensorView contiguous_as(const TensorView& in, DType dtype, std::optional<ScratchTensor>& holder) {
  if (in.dtype == dtype && in.is_contiguous()) return in;
  holder.emplace(dtype, in.sizes);
  copy(holder->view(), in);
  return holder->view();
}

// Runs f(view) with a contiguous view of `dtype` and out's shape: `out`
// itself when it is one, else a scratch copied into `out` afterwards.
template <class F>
void write_contiguous(const TensorView& out, DType dtype, F&& f) {
  if (out.dtype == dtype && out.is_contiguous()) {
    f(out);
    return;
  }
  const ScratchTensor staged(dtype, out.sizes);
  f(staged.view());
  copy(out, staged.view());
}

// `t` with dim `d` moved to the front (a view: strides permuted).
inline TensorView move_dim_first(const TensorView& t, int64_t d) {
  TensorView v = t;
  v.sizes.clear();
  v.strides.clear();
  v.sizes.push_back(t.sizes[d]);
  v.strides.push_back(t.strides[d]);
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i == d) continue;
    v.sizes.push_back(t.sizes[i]);
    v.strides.push_back(t.strides[i]);
  }
  return v;
}

}  // namespace npu::kernels
