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

}  // namespace npu::ops
