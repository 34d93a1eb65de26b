// The storage descriptor of an npu tensor: which format its storage holds
// and the physical storage shape. It lives on the storage (NpuStorageImpl),
// so every view of a storage shares it, as in torch_npu.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/core/StorageImpl.h>

namespace npu {

struct StorageFormat {
  int32_t npu_format = 2;     // aclFormat of the storage (ND by default)
  int32_t origin_format = 2;  // the base format the tensor was created in
  std::vector<int64_t> base_sizes;     // logical sizes of the base tensor
  std::vector<int64_t> storage_sizes;  // physical shape, padding included
};

// Storage of every npu tensor: a StorageImpl that also carries the format.
struct NpuStorageImpl final : c10::StorageImpl {
  NpuStorageImpl(use_byte_size_t, size_t size_bytes, at::DataPtr data_ptr, at::Allocator* allocator,
                 bool resizable)
      : c10::StorageImpl(use_byte_size_t(), size_bytes, std::move(data_ptr), allocator, resizable) {}
  StorageFormat format;
  bool has_format = false;  // false until a creator or a cast sets it
};

// The format of `t`'s storage; for storages without a descriptor, the base
// format guessed from the tensor's rank (4-D NCHW, 5-D NCDHW, else ND) and a
// 1-D storage shape of all its elements.
StorageFormat storage_format(const at::Tensor& t);

// A new npu storage of `size_bytes` from the npu allocator, without a format.
c10::intrusive_ptr<c10::StorageImpl> make_npu_storage(size_t size_bytes);

// True when `t`'s storage holds a private (non-base) format.
bool has_private_format(const at::Tensor& t);

// Sets the descriptor on `t`'s storage (which must be an npu storage).
void set_storage_format(const at::Tensor& t, StorageFormat format);

}  // namespace npu
