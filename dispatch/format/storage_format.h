// The storage descriptor of an npu tensor (device_model's StorageDesc: base
// sizes, storage sizes, origin and npu format, dtype). It lives on the
// storage (NpuStorageImpl), so every view of a storage shares it, as in
// torch_npu.
#pragma once

#include <atomic>

#include <ATen/Tensor.h>
#include <c10/core/StorageImpl.h>

#include "device_model/storage_desc.h"
#include "dispatch/format/format_origin.h"

namespace npu {

// Storage of every npu tensor: a StorageImpl that also carries the descriptor.
struct NpuStorageImpl final : c10::StorageImpl {
  NpuStorageImpl(use_byte_size_t, size_t size_bytes, at::DataPtr data_ptr, at::Allocator* allocator,
                 bool resizable)
      : c10::StorageImpl(use_byte_size_t(), size_bytes, std::move(data_ptr), allocator, resizable) {}
  model::StorageDesc desc;
  bool has_desc = false;  // false until a creator or a cast sets it
  // Why the storage has its format (npu_emu.debug.explain): set only where
  // a format is decided (format_origin.h), never on the plain launch path.
  FormatOrigin origin;
};

model::DType to_model_dtype(at::ScalarType type);

// `t`'s storage, read without the virtual accessor's call (this runs for
// every tensor argument of every launch). A tensor with no storage of its
// own goes through the checked accessor, which throws for the kinds that
// have none (sparse, nested, wrapper subclasses).
inline const c10::Storage& storage_of(const at::Tensor& t) {
  const c10::Storage& s = t.unsafeGetTensorImpl()->unsafe_storage();
  return C10_LIKELY(static_cast<bool>(s)) ? s : t.storage();
}

// The descriptor of `t`'s storage. Storages without one are in the base
// format guessed from the tensor's rank (4-D NCHW, 5-D NCDHW, else ND), with
// a 1-D storage shape of all their elements.
model::StorageDesc storage_desc(const at::Tensor& t);

// What aclCreateTensor needs of `t`'s storage (npu format and storage
// shape), as storage_desc(t) gives them but without copying the descriptor:
// this runs for every tensor argument of every launch. Refers to `t`'s
// storage, so it must not outlive `t`.
class StorageShapeRef {
 public:
  explicit StorageShapeRef(const at::Tensor& t);
  model::Format npu_format() const { return format_; }
  const int64_t* dims() const { return desc_ != nullptr ? desc_->storage_sizes.data() : &flat_; }
  std::size_t ndim() const { return desc_ != nullptr ? desc_->storage_sizes.size() : 1; }

 private:
  const model::StorageDesc* desc_ = nullptr;  // null: no descriptor, a 1-D storage of `flat_` elements
  int64_t flat_ = 0;
  model::Format format_ = model::Format::ND;
};

namespace detail {
// Set (never cleared) by the first private-format descriptor any storage
// gets (set_storage_desc, the only writer of descriptors): until then no
// storage holds one, and the check every launch makes per tensor argument is
// this one load.
extern std::atomic<bool> g_private_formats_used;
bool storage_has_private_format(const at::Tensor& t);
}  // namespace detail

// True when `t`'s storage holds a private (non-base) format.
inline bool has_private_format(const at::Tensor& t) {
  return detail::g_private_formats_used.load(std::memory_order_relaxed) && detail::storage_has_private_format(t);
}

// Sets the descriptor on `t`'s storage (which must be an npu storage).
void set_storage_desc(const at::Tensor& t, model::StorageDesc desc);

// Records why `t`'s storage has its format (ignored for non-npu storages),
// and reads it back (an empty origin when no format decision was recorded).
void set_storage_origin(const at::Tensor& t, FormatOrigin origin);
FormatOrigin storage_origin(const at::Tensor& t);

// A new npu storage of `size_bytes` from the npu allocator, without a descriptor.
c10::intrusive_ptr<c10::StorageImpl> make_npu_storage(size_t size_bytes);

}  // namespace npu
