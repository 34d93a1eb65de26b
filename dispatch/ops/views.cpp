// View and metadata ops for npu: they only rewrite sizes/strides/storage
// references, never touch data, so PyTorch's generic implementations apply.
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>


namespace npu::ops {

namespace {

const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size, std::optional<at::MemoryFormat> format) {
  at::detail::check_size_nonnegative(size);
  c10::DeviceGuard guard(self.device());
  auto* impl = self.unsafeGetTensorImpl();
  const int64_t needed = at::detail::computeStorageNbytesContiguous(size, self.element_size(),
                                                                     self.storage_offset());
  if (self.storage().nbytes() < static_cast<size_t>(needed)) {
    at::native::resize_bytes_nocuda(self.storage(), needed);  // reaches NpuHooks::resizePrivateUse1Bytes
  }
  at::native::resize_impl_cpu_(impl, size, /*stride=*/std::nullopt, /*resize_storage=*/false);
  if (format && *format != at::MemoryFormat::Preserve) impl->empty_tensor_restride(*format);
  return self;
}

at::Tensor& set_storage_(at::Tensor& self, at::Storage source, int64_t offset, at::IntArrayRef size,
                         at::IntArrayRef stride) {
  at::native::checkSetStorage(self, source, offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(offset);
  const std::optional<at::IntArrayRef> st = stride.data() != nullptr ? std::optional(stride) : std::nullopt;
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, st, /*resize_storage=*/false);
  return self;
}

at::Tensor& set_source_storage_(at::Tensor& self, at::Storage source) {
  const int64_t n = static_cast<int64_t>(source.nbytes() / self.element_size());
  return set_storage_(self, std::move(source), 0, {n}, {});
}

at::Tensor& set_source_tensor_(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return set_storage_(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty_(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, c10::GetAllocator(c10::DeviceType::PrivateUse1), true);
  return set_storage_(self, std::move(storage), 0, {0}, {});
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  m.impl("unfold", TORCH_FN(at::native::unfold));
  m.impl("view_as_real", TORCH_FN(at::native::view_as_real));
  m.impl("view_as_complex", TORCH_FN(at::native::view_as_complex));
  m.impl("alias", TORCH_FN(at::native::alias));
  m.impl("resize_", TORCH_FN(resize_));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(set_storage_));
  m.impl("set_.source_Storage", TORCH_FN(set_source_storage_));
  m.impl("set_.source_Tensor", TORCH_FN(set_source_tensor_));
  m.impl("set_", TORCH_FN(set_empty_));
}

}  // namespace npu::ops
