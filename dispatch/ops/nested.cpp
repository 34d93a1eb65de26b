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
// Those registrations are rows of ops/table/nested.yaml; the boxed fallback
// serves no one op and stays here.
#include <string>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace npu::ops {

namespace {

[[noreturn]] void refuse_strided_nested(const std::string& op) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, op,
                              ": nested tensors with the strided layout (torch.strided, the default of "
                              "torch.nested.nested_tensor / as_nested_tensor) are not supported on npu. Use "
                              "layout=torch.jagged, whose ops run on npu, or build the nested tensor on the CPU.");
}

void refuse_nested_op(const c10::OperatorHandle& op, torch::jit::Stack*) {
  refuse_strided_nested(op.schema().operator_name().name);
}

}  // namespace

at::Tensor nested_tensor_from_tensor_list(at::TensorList, std::optional<at::ScalarType>, std::optional<at::Layout>,
                                          std::optional<at::Device>, std::optional<bool>) {
  refuse_strided_nested("aten::_nested_tensor_from_tensor_list");
}

TORCH_LIBRARY_IMPL(_, NestedTensorPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&refuse_nested_op>());
}

}  // namespace npu::ops
