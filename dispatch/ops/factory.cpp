// New npu tensors: aten::empty.memory_format, aten::empty_strided and
// resize_ (registered by ops/table/factory.yaml), and the helpers other
// dispatch code makes tensors with.
#include "dispatch/ops/factory.h"

#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/ResizeCommon.h>
#include <ATen/native/TensorFactories.h>
#include <c10/core/DeviceGuard.h>

#include "dispatch/format/storage_format.h"
#include "dispatch/runtime/npu_device.h"

namespace npu::ops {

namespace {

c10::Device resolve_device(std::optional<c10::Device> device) {
  if (!device || !device->has_index()) return c10::Device(c10::DeviceType::PrivateUse1, current_device());
  TORCH_CHECK(device->type() == c10::DeviceType::PrivateUse1, "expected an npu device, got ", *device);
  check_device_index(device->index());
  return *device;
}

at::Tensor make_tensor(at::IntArrayRef size, std::optional<at::IntArrayRef> stride, at::ScalarType dtype,
                       std::optional<c10::Device> device, at::MemoryFormat memory_format) {
  at::detail::check_size_nonnegative(size);
  const c10::Device dev = resolve_device(device);
  // Every op's result comes through here: a guard (a virtual guard-impl
  // lookup and two device switches) only when the device is not current.
  std::optional<c10::DeviceGuard> guard;
  if (dev.index() != current_device()) guard.emplace(dev);
  const auto itemsize = c10::elementSize(dtype);
  const size_t nbytes = stride ? at::detail::computeStorageNbytes(size, *stride, itemsize)
                               : at::detail::computeStorageNbytesContiguous(size, itemsize);
  auto tensor = at::detail::make_tensor<c10::TensorImpl>(c10::Storage(make_npu_storage(nbytes)),
                                                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                         c10::scalarTypeToTypeMeta(dtype));
  if (stride) {
    tensor.unsafeGetTensorImpl()->set_sizes_and_strides(size, *stride);
  } else {
    tensor.unsafeGetTensorImpl()->set_sizes_contiguous(size);
    if (memory_format != at::MemoryFormat::Contiguous) {
      tensor.unsafeGetTensorImpl()->empty_tensor_restride(memory_format);
    }
  }
  return tensor;
}

}  // namespace

at::Tensor empty_memory_format(c10::SymIntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory, std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!pin_memory.value_or(false), "pin_memory is only for CPU tensors, not npu tensors");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "npu supports only the strided layout, got ", *layout);
  at::Tensor tensor = make_tensor(C10_AS_INTARRAYREF_SLOW(size), std::nullopt,
                                  dtype.value_or(at::get_default_dtype_as_scalartype()), device,
                                  memory_format.value_or(at::MemoryFormat::Contiguous));
  fill_uninitialized_if_deterministic(tensor);
  return tensor;
}

at::Tensor empty_strided(c10::SymIntArrayRef size, c10::SymIntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
  TORCH_CHECK(!pin_memory.value_or(false), "pin_memory is only for CPU tensors, not npu tensors");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "npu supports only the strided layout, got ", *layout);
  at::Tensor tensor = make_tensor(C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride),
                                  dtype.value_or(at::get_default_dtype_as_scalartype()), device,
                                  at::MemoryFormat::Contiguous);
  fill_uninitialized_if_deterministic(tensor);
  return tensor;
}

at::Tensor empty_npu(at::IntArrayRef size, at::ScalarType dtype, std::optional<c10::Device> device,
                     at::MemoryFormat memory_format) {
  return make_tensor(size, std::nullopt, dtype, device, memory_format);
}

at::Tensor empty_strided_npu(at::IntArrayRef size, at::IntArrayRef stride, at::ScalarType dtype,
                             std::optional<c10::Device> device) {
  return make_tensor(size, stride, dtype, device, at::MemoryFormat::Contiguous);
}

at::Tensor empty_like_npu(const at::Tensor& like, at::ScalarType dtype) {
  return make_tensor(like.sizes(), std::nullopt, dtype, like.device(), at::MemoryFormat::Contiguous);
}

namespace {

bool fills_uninitialized_memory() {
  const auto& context = at::globalContext();
  return context.deterministicAlgorithms() && context.deterministicFillUninitializedMemory();
}

}  // namespace

void fill_uninitialized_if_deterministic(at::Tensor& tensor) {
  // PyTorch's own fill (values per dtype as CPU's empty); it runs fill_ on npu.
  if (fills_uninitialized_memory() && tensor.numel() > 0) at::native::fill_empty_deterministic_(tensor);
}

void fill_grown_storage_if_deterministic(const at::Tensor& tensor, int64_t old_storage_nbytes) {
  if (fills_uninitialized_memory()) at::native::fill_resize_deterministic_(tensor, old_storage_nbytes);
}

const at::Tensor& resize_(const at::Tensor& self, c10::SymIntArrayRef sym_size,
                         std::optional<at::MemoryFormat> format) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(sym_size);
  at::detail::check_size_nonnegative(size);
  c10::DeviceGuard guard(self.device());
  auto* impl = self.unsafeGetTensorImpl();
  const int64_t needed = at::detail::computeStorageNbytesContiguous(size, self.element_size(),
                                                                     self.storage_offset());
  const auto old_nbytes = static_cast<int64_t>(self.storage().nbytes());
  if (old_nbytes < needed) {
    at::native::resize_bytes_nocuda(self.storage(), needed);  // reaches NpuHooks::resizePrivateUse1Bytes
  }
  at::native::resize_impl_cpu_(impl, size, /*stride=*/std::nullopt, /*resize_storage=*/false);
  if (format && *format != at::MemoryFormat::Preserve) impl->empty_tensor_restride(*format);
  if (old_nbytes < needed) fill_grown_storage_if_deterministic(self, old_nbytes);
  return self;
}

}  // namespace npu::ops
