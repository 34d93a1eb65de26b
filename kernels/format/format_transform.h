// Moving data between the logical (base-format) layout of a tensor and the
// physical layout of its storage in a private format. Pure data movement: the
// dtype matters only through its element size (1, 2, 4 or 8 bytes) and the
// C0 it implies. The layouts are FORMATS.md's index maps.
#pragma once

#include "device_model/storage_desc.h"

namespace npu::kernels {

// Writes the whole storage of `desc` from `base`, a contiguous row-major
// buffer of desc.base_sizes. Padding elements of the storage become zero, so
// the result does not depend on what `storage` held. For a base format this
// is a copy. Throws KernelError when desc.storage_sizes is not the storage
// shape of (base_sizes, npu_format, dtype). Buffers must not overlap.
void base_to_storage(const model::StorageDesc& desc, const void* base, void* storage);

// The inverse of base_to_storage: reads the storage of `desc` and writes
// desc.base_sizes contiguous, row-major, to `base`. Padding is not read back.
void storage_to_base(const model::StorageDesc& desc, const void* storage, void* base);

// Re-lays the storage `src` (described by `src_desc`) as `dst_desc`'s format.
// Both descriptors must have the same base sizes and element size. Between
// two private formats the data goes through a temporary base-format buffer;
// between two base formats it is a plain copy. Buffers must not overlap.
void convert_storage(const model::StorageDesc& src_desc, const void* src, const model::StorageDesc& dst_desc,
                     void* dst);

}  // namespace npu::kernels
