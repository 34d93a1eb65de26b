// View and metadata ops for npu: they only rewrite sizes/strides/storage
// references, never touch data (whatever the storage's format), so
// PyTorch's generic implementations apply.
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/alias_native.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/factory.h"


namespace npu::ops {

namespace {

// Views of a private-format tensor only rewrite sizes, strides and offset:
// the view shares the storage and its descriptor, and its indices address
// the storage's logical base layout. The storage keeps its format; an op
// that reads or writes the view goes through a base-format copy of the
// storage (PrivateFormatArgs, to_base_format, copy_with_formats).
at::Tensor as_strided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                      std::optional<int64_t> offset) {
  return at::native::as_strided_tensorimpl(self, size, stride, offset);
}

// clone keeps a private format; base-format tensors, and views of a
// private-format storage (which are not laid out in it), clone as on any
// device, from their base-format values.
// A conjugate or negative view is cloned as its plain data, then conjugated
// or negated for real: PyTorch's conjugate/negative fallback resolves such
// views by cloning them, and a clone that copied them through _copy_from
// would be resolved again, recursing without end.
at::Tensor clone(const at::Tensor& self, std::optional<at::MemoryFormat> memory_format) {
  if (self.is_conj()) return at::conj_physical(at::clone(self.conj(), memory_format));
  if (self.is_neg()) return at::neg(at::clone(self._neg_view(), memory_format));
  if (!has_private_format(self)) return at::native::clone(self, memory_format);
  if (!covers_storage(self, storage_desc(self))) return at::native::clone(to_base_format(self), memory_format);
  at::Tensor out = empty_with_format(self.sizes(), self.scalar_type(), self.device(), storage_desc(self).npu_format);
  copy_with_formats(out, self);
  return out;
}

const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size, std::optional<at::MemoryFormat> format) {
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
  m.impl("as_strided", TORCH_FN(as_strided));
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  m.impl("clone", TORCH_FN(clone));
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
