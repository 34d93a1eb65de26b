// aten::copy_ into an npu tensor whose conjugate or negative bit is set.
//
// In-place and out= ops on such a view (a.conj().exp_(), torch.exp(x,
// out=a.conj())) reach npu through PyTorch's Conjugate / Negative fallback:
// it runs the op on a resolved clone, then writes the clone back with
// view.copy_(clone). For backends other than CPU and CUDA, copy_ hands the
// data movement to aten::_copy_from(src, dst), whose schema does not mark
// dst as written; the same fallback therefore resolves dst into a clone
// too, and the write lands in that clone, not in the view's memory. So a
// destination with math bits is written here, through a view of the same
// memory with the bits cleared, with the values that memory must hold.
// Registered for aten::copy_ by the op table (ops/table/unary.yaml, registrations).
#include <ATen/ATen.h>
#include <ATen/ops/copy_native.h>

#include "dispatch/table/math_bits.h"

namespace npu::ops {

at::Tensor& copy_with_math_bits(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  if (!self.is_conj() && !self.is_neg()) return at::native::copy_(self, src, non_blocking);
  // Element values are logical = neg^n(conj^c(stored)); both maps are their
  // own inverse and commute, so stored = conj^c(neg^n(logical)).
  at::Tensor stored = self;
  at::Tensor value = src;
  if (self.is_neg()) {
    stored = stored._neg_view();
    value = at::neg(value);  // materialized: neg of a neg view would only flip the bit back
  }
  if (self.is_conj()) {
    stored = stored.conj();
    // Resolved here with native ops: _copy_from's Conjugate fallback would
    // resolve a conjugate source with conj_physical, which npu has no kernel for.
    value = table::plain(value.conj());
  }
  at::native::copy_(stored, value, non_blocking);
  return self;
}

}  // namespace npu::ops
