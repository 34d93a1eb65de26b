// aten::is_set_to for npu: whether two tensors are views of the same storage
// with the same offset, sizes and strides (what `a.set_(b)` establishes).
// It only compares metadata, so PyTorch's generic implementation applies; the
// CPU fallback would compare the storages of two fresh CPU copies and always
// answer False.
#include <ATen/ops/is_set_to_native.h>
#include <torch/library.h>

namespace npu::ops {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("is_set_to", TORCH_FN(at::native::is_set_to)); }

}  // namespace npu::ops
