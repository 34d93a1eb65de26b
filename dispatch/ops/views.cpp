// Metadata ops for npu that need more than PyTorch's generic view kernels
// (ops/table/views.yaml registers both): clone, which keeps a private
// format, and set_, which points a tensor at another storage. They never
// touch data themselves.
#include <ATen/native/Resize.h>
#include <ATen/ops/clone_native.h>

#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/factory.h"

namespace npu::ops {

// Views of a private-format tensor (as_strided, view, ... : PyTorch's own
// kernels) only rewrite sizes, strides and offset: the view shares the
// storage and its descriptor, and its indices address the storage's logical
// base layout. The storage keeps its format; an op that reads or writes the
// view goes through a base-format copy of the storage (PrivateFormatArgs,
// to_base_format, copy_with_formats).

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
  const FormatReason reason("aten::clone", "clone of a whole private-format tensor keeps its format");
  at::Tensor out = empty_with_format(self.sizes(), self.scalar_type(), self.device(), storage_desc(self).npu_format);
  copy_with_formats(out, self);
  return out;
}

namespace {

at::Tensor& point_at_storage(at::Tensor& self, at::Storage source, int64_t offset, at::IntArrayRef size,
                             at::IntArrayRef stride) {
  at::native::checkSetStorage(self, source, offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(offset);
  const std::optional<at::IntArrayRef> st = stride.data() != nullptr ? std::optional(stride) : std::nullopt;
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, st, /*resize_storage=*/false);
  return self;
}

}  // namespace

at::Tensor& set_storage_(at::Tensor& self, at::Storage source, c10::SymInt offset, c10::SymIntArrayRef size,
                         c10::SymIntArrayRef stride) {
  return point_at_storage(self, std::move(source), offset.guard_int(__FILE__, __LINE__),
                          C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride));
}

at::Tensor& set_source_storage_(at::Tensor& self, at::Storage source) {
  const int64_t n = static_cast<int64_t>(source.nbytes() / self.element_size());
  return point_at_storage(self, std::move(source), 0, {n}, {});
}

at::Tensor& set_source_tensor_(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return point_at_storage(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty_(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, c10::GetAllocator(c10::DeviceType::PrivateUse1), true);
  return point_at_storage(self, std::move(storage), 0, {0}, {});
}

}  // namespace npu::ops
