// The pad backwards of dispatch/ops/padding.cpp that PyTorch gives no meta
// function: one body serves every (mode, rank) and both forms.
// ops/table/pad.yaml's generated wrappers call them with the schema's name
// (the capability check and the fallback name it).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/SymIntArrayRef.h>

namespace npu::ops {

enum class PadBackward { Reflection2d, Replication2d, Replication3d };

at::Tensor pad_backward(PadBackward op, const char* schema, const at::Tensor& grad_output, const at::Tensor& self,
                        c10::SymIntArrayRef padding);
at::Tensor& pad_backward_out(PadBackward op, const char* schema, const at::Tensor& grad_output,
                             const at::Tensor& self, c10::SymIntArrayRef padding, at::Tensor& grad_input);

}  // namespace npu::ops
