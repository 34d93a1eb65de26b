#include "dispatch/table/structured_call.h"

#include <type_traits>
#include <utility>

#include <ATen/native/Resize.h>

#include "dispatch/ops/factory.h"

namespace npu::table {

at::Tensor create_out(at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions& options) {
  const at::ScalarType dtype = options.dtype().toScalarType();
  if (strides.empty()) {
    return ops::empty_npu(sizes, dtype, options.device(),
                          options.memory_format_opt().value_or(at::MemoryFormat::Contiguous));
  }
  return ops::empty_strided_npu(sizes, strides, dtype, options.device());
}

void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options) {
  // Worded as PyTorch words these refusals (tests compare the messages).
  TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ", options.dtype(), ", but got ",
              out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(),
              "Expected all tensors to be on the same device, but found at least two devices, ", options.device(),
              " and ", out.device(), "! (out= tensor)");
  if (at::native::resize_output(out, sizes)) {
    // A resized out takes the layout the op prefers; an out that already fit
    // keeps its own strides (the meta function's strides are a hint).
    if (!strides.empty()) {
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}

void check_inplace(const at::Tensor& self, at::IntArrayRef sizes, const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == self.dtype(), "in-place op on a ", self.dtype(), " tensor would produce ",
              options.dtype(), "; the dtypes must match");
  TORCH_CHECK(options.device() == self.device(), "in-place op on a tensor on ", self.device(),
              " would produce a result on ", options.device());
  TORCH_CHECK(sizes == self.sizes(), "in-place op on a tensor of size ", self.sizes(),
              " would produce a result of size ", sizes, "; the sizes must match");
}

// The generated wrappers rely on this: no copy of the operand.
static_assert(std::is_same_v<decltype(*device_operand(std::declval<const at::Tensor&>(), at::Device(at::kCPU),
                                                      at::kFloat)),
                             const at::Tensor&>);

DeviceOperand device_operand(const at::Tensor& t, at::Device device, at::ScalarType compute) {
  if (!is_cpu_scalar(t)) return DeviceOperand(c10::MaybeOwned<at::Tensor>::borrowed(t));
  return DeviceOperand(c10::MaybeOwned<at::Tensor>::owned(t.to(at::TensorOptions().device(device).dtype(compute))));
}

at::Tensor new_output(at::ScalarType dtype, const at::Tensor& a, const at::Tensor& b) {
  const at::Device device = a.is_privateuseone() || !b.defined() ? a.device() : b.device();
  return ops::empty_npu({0}, dtype, device);
}

}  // namespace npu::table
