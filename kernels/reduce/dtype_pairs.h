// Which (input, output) element-type pairs accumulating kernels (sum, prod,
// cumsum ...) instantiate directly. PyTorch's defaults need integer/bool ->
// int64 (sum of an int32 tensor) and half/bfloat16 -> float (mean of half in
// float) without a conversion pass; every other pair converts the input into
// the output's dtype first, which keeps template instantiations few.
#pragma once

#include <optional>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/scratch.h"

namespace npu::kernels {

// Calls f(input_view, TypeTag<In>{}, TypeTag<Out>{}) with Out the element
// type of `out_dtype`, and In either the input's own type (direct pair) or
// Out (input converted into a scratch copy).
template <class F>
void visit_accumulating(const TensorView& in, DType out_dtype, F&& f) {
  auto direct = [&](auto in_tag, auto out_tag) {
    f(in, in_tag, out_tag);
    return true;
  };
  bool done = false;
  if (out_dtype == DType::Int64) {
    switch (in.dtype) {
      case DType::Bool: done = direct(TypeTag<bool>{}, TypeTag<int64_t>{}); break;
      case DType::Int8: done = direct(TypeTag<int8_t>{}, TypeTag<int64_t>{}); break;
      case DType::UInt8: done = direct(TypeTag<uint8_t>{}, TypeTag<int64_t>{}); break;
      case DType::Int16: done = direct(TypeTag<int16_t>{}, TypeTag<int64_t>{}); break;
      case DType::Int32: done = direct(TypeTag<int32_t>{}, TypeTag<int64_t>{}); break;
      default: break;
    }
  } else if (out_dtype == DType::Float32) {
    if (in.dtype == DType::Float16) done = direct(TypeTag<half>{}, TypeTag<float>{});
    if (in.dtype == DType::BFloat16) done = direct(TypeTag<bfloat16>{}, TypeTag<float>{});
  }
  if (done) return;
  std::optional<ScratchTensor> holder;
  const TensorView src = input_as(in, out_dtype, holder);
  visit_dtype(out_dtype, [&](auto tag) { f(src, tag, tag); });
}

}  // namespace npu::kernels
