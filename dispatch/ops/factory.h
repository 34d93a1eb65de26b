// Making npu tensors: every device tensor is created here, so every storage
// is an NpuStorageImpl from the npu allocator.
#pragma once

#include <optional>

#include <ATen/Tensor.h>

namespace npu::ops {

at::Tensor empty_npu(at::IntArrayRef size, at::ScalarType dtype, std::optional<c10::Device> device = std::nullopt,
                     at::MemoryFormat memory_format = at::MemoryFormat::Contiguous);
at::Tensor empty_strided_npu(at::IntArrayRef size, at::IntArrayRef stride, at::ScalarType dtype,
                             std::optional<c10::Device> device = std::nullopt);
// A contiguous npu tensor with `like`'s sizes on `like`'s device.
at::Tensor empty_like_npu(const at::Tensor& like, at::ScalarType dtype);

// Under torch.use_deterministic_algorithms(True) with
// torch.utils.deterministic.fill_uninitialized_memory (the default), memory
// a user sees uninitialized is filled as on CPU: NaN for floating and complex
// dtypes, the dtype's maximum for integers and bool. For the public empty
// factories, and for the bytes a resize_ adds (old_storage_nbytes: the
// storage's size before it grew).
void fill_uninitialized_if_deterministic(at::Tensor& tensor);
void fill_grown_storage_if_deterministic(const at::Tensor& tensor, int64_t old_storage_nbytes);

}  // namespace npu::ops
