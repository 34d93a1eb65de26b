// The pooling kernels PyTorch gives no meta function, one body for the 2-d
// and 3-d forms (`rank`): adaptive average pooling (dispatch/ops/pooling.cpp)
// and max unpooling (dispatch/ops/max_unpool.cpp). ops/table/pool.yaml's
// generated wrappers call them with the schema's name (the capability check
// and the fallback name it).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <c10/core/SymIntArrayRef.h>

namespace npu::ops {

at::Tensor adaptive_avg_pool(int64_t rank, const char* schema, const at::Tensor& self,
                             c10::SymIntArrayRef output_size);
at::Tensor& adaptive_avg_pool_out(int64_t rank, const char* schema, const at::Tensor& self,
                                  c10::SymIntArrayRef output_size, at::Tensor& out);
at::Tensor adaptive_avg_pool_backward(int64_t rank, const char* schema, const at::Tensor& grad_output,
                                      const at::Tensor& self);
at::Tensor& adaptive_avg_pool_backward_out(int64_t rank, const char* schema, const at::Tensor& grad_output,
                                           const at::Tensor& self, at::Tensor& grad_input);

// stride and padding: 3-d only (checked, as CPU checks them), empty for 2-d.
at::Tensor max_unpool(int64_t rank, const char* schema, const at::Tensor& self, const at::Tensor& indices,
                      c10::SymIntArrayRef output_size, at::IntArrayRef stride, at::IntArrayRef padding);
at::Tensor& max_unpool_out(int64_t rank, const char* schema, const at::Tensor& self, const at::Tensor& indices,
                           c10::SymIntArrayRef output_size, at::IntArrayRef stride, at::IntArrayRef padding,
                           at::Tensor& out);

}  // namespace npu::ops
