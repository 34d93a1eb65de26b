// Nested tensors with the strided layout (torch.nested.*_tensor without
// layout=torch.jagged) have no npu kernels. Left to PyTorch, building one
// from npu tensors that require grad aborts the process: autograd records the
// result's sizes through aten::_nested_tensor_size, which has no
// NestedTensorPrivateUse1 kernel, and that error is thrown where no exception
// may pass. So they are refused where they are built, before autograd sees
// them, with one error that says what to use instead; any other op reaching
// the NestedTensorPrivateUse1 key gets the same error, except the three that
// read a nested tensor's metadata (autograd calls them where no exception may
// pass, for a nested npu tensor made another way: a CPU one moved to npu).
#include <string>

#include <ATen/ATen.h>
#include <ATen/ops/_nested_tensor_size_native.h>
#include <ATen/ops/_nested_tensor_storage_offsets_native.h>
#include <ATen/ops/_nested_tensor_strides_native.h>
#include <torch/library.h>

namespace npu::ops {

namespace {

[[noreturn]] void refuse_strided_nested(const std::string& op) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, op,
                              ": nested tensors with the strided layout (torch.strided, the default of "
                              "torch.nested.nested_tensor / as_nested_tensor) are not supported on npu. Use "
                              "layout=torch.jagged, whose ops run on npu, or build the nested tensor on the CPU.");
}

at::Tensor nested_tensor_from_tensor_list(at::TensorList, std::optional<at::ScalarType>, std::optional<at::Layout>,
                                          std::optional<at::Device>, std::optional<bool>) {
  refuse_strided_nested("aten::_nested_tensor_from_tensor_list");
}

void refuse_nested_op(const c10::OperatorHandle& op, torch::jit::Stack*) {
  refuse_strided_nested(op.schema().operator_name().name);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_nested_tensor_from_tensor_list", TORCH_FN(nested_tensor_from_tensor_list));
}

TORCH_LIBRARY_IMPL(_, NestedTensorPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&refuse_nested_op>());
}

// Metadata only (CPU tensors of the components' sizes, strides, offsets):
// PyTorch's device-independent kernels.
TORCH_LIBRARY_IMPL(aten, NestedTensorPrivateUse1, m) {
  m.impl("_nested_tensor_size", TORCH_FN(at::native::_nested_tensor_size));
  m.impl("_nested_tensor_strides", TORCH_FN(at::native::_nested_tensor_strides));
  m.impl("_nested_tensor_storage_offsets", TORCH_FN(at::native::_nested_tensor_storage_offsets));
}

}  // namespace npu::ops
