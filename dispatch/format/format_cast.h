// Moving npu tensors between storage formats (aclnnNpuFormatCast), with
// torch_npu's rules: rank fallbacks (NZ below 2-D, NCHW off 4-D -> ND, with
// a warning), base-to-base casts only relabel, private <-> private goes
// through the base layout (in the emulator's kernel).
#pragma once

#include <optional>

#include <ATen/Tensor.h>

#include "device_model/format.h"
#include "device_model/storage_desc.h"

namespace npu {

// The format id `acl_format` as a Format; a clear error for ids outside the table.
model::Format format_from_user_id(int64_t acl_format);

// A new npu tensor of `sizes` whose storage is laid out in `format` (after
// the rank fallbacks); contents undefined.
at::Tensor empty_with_format(at::IntArrayRef sizes, at::ScalarType dtype, c10::Device device, model::Format format);

// `t`'s values in `format` (a new tensor; `t` itself when already in it).
// `customize_dtype` picks an NZ layout of 32-byte blocks of that dtype (CANN's C0).
at::Tensor format_cast(const at::Tensor& t, model::Format format,
                       std::optional<at::ScalarType> customize_dtype = std::nullopt);

// Re-lays `t`'s storage in `format`, in place: every view of the storage
// sees the new format. `t` must cover its whole storage.
void format_cast_(const at::Tensor& t, model::Format format);

// True when `t` is exactly the logical tensor its storage descriptor `d`
// describes (its base sizes, contiguous, offset 0) rather than a view of it.
bool covers_storage(const at::Tensor& t, const model::StorageDesc& d);

// True when `t` can be described to aclnn in its storage's private format:
// it is the whole logical tensor of `d` (covers_storage) or a permutation of
// its dims (a transposed NZ weight), in a dtype of the storage's element
// size. Any other view of a private storage has no aclnn description.
bool is_whole_storage(const at::Tensor& t, const model::StorageDesc& d);

// A tensor of `t`'s dtype over `t`'s whole storage, with the base sizes of
// the storage's descriptor: the tensor a view of a private storage views.
at::Tensor whole_storage(const at::Tensor& t);

// `t` if its storage is in a base format, else its values in the base
// format, in new memory: `t`'s storage is never touched. A view of a
// private-format storage comes back as the same view of a base-format copy
// of the whole storage.
at::Tensor to_base_format(const at::Tensor& t);

// dst <- src where either is in a private format (same device). A view of a
// private-format dst is written through a base-format copy of its storage
// that is then laid back in the storage's own format.
void copy_with_formats(const at::Tensor& dst, const at::Tensor& src);

}  // namespace npu
