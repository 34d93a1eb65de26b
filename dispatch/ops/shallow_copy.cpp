// aten::_has_compatible_shallow_copy_type for npu: whether `param.data = t`
// (and Module.to / .cuda()-style conversions, which use it to keep a
// Parameter object and everything that references it) may swap a tensor's
// storage and metadata for another's in place.
//
// PyTorch answers yes for dense tensors of the built-in devices only; for
// PrivateUse1 it leaves the answer to the backend. An npu tensor is a plain
// strided TensorImpl over an npu storage (dispatch/ops/factory.cpp), so it is
// exchangeable with a dense CPU tensor exactly as a CUDA tensor is. Without
// this, Module.to("npu") replaces every parameter by a new object, and two
// modules that share one parameter (a tied embedding and output head) end up
// with two independent copies.
#include <ATen/core/Tensor.h>

namespace npu::ops {

namespace {

bool is_dense_cpu_or_npu(const at::Tensor& t) {
  const c10::DispatchKeySet keys = t.key_set();
  if (!keys.has(c10::DispatchKey::Dense) || t.layout() != at::kStrided) return false;
  return keys.has_backend(c10::BackendComponent::CPUBit) || keys.has_backend(c10::BackendComponent::PrivateUse1Bit);
}

}  // namespace

// Dispatch picks the PrivateUse1 kernel whenever either argument is on npu,
// so CPU<->npu pairs reach it in both directions (ops/table/views.yaml).
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  if (self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set())) return true;
  return is_dense_cpu_or_npu(self) && is_dense_cpu_or_npu(from);
}

}  // namespace npu::ops
