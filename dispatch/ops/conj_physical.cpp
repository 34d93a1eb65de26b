// aten::conj_physical_ on npu. PyTorch's composite in-place kernel calls its
// CPU/CUDA kernel table directly (an internal assert "DispatchStub: missing
// kernel for npu" on any other device); the dispatched out= form with self as
// out reaches npu's implementation of it (the CPU fallback today) instead.
// Registered by the op table (ops/table/unary.yaml, registrations).
#include <ATen/ATen.h>

namespace npu::ops {

at::Tensor& conj_physical_(at::Tensor& self) {
  if (!self.is_complex()) return self;  // the conjugate of a real tensor is itself
  at::conj_physical_out(self, self);
  return self;
}

}  // namespace npu::ops
