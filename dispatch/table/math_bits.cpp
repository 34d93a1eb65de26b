#include "dispatch/table/math_bits.h"

namespace npu::table {

at::Tensor plain(const at::Tensor& t) {
  if (!t.defined() || (!t.is_conj() && !t.is_neg())) return t;
  if (!t.is_conj()) return t.resolve_neg();
  // resolve_conj would run conj_physical (no native npu kernel): the
  // conjugate is written here with native copies instead, real part as it
  // is, imaginary part negated, from the same memory read unconjugated.
  const at::Tensor values = t.conj().resolve_neg();
  at::Tensor out = at::empty(values.sizes(), values.options());
  const at::Tensor out_ri = at::view_as_real(out), in_ri = at::view_as_real(values);
  out_ri.select(-1, 0).copy_(in_ri.select(-1, 0));
  at::Tensor imag = out_ri.select(-1, 1);
  at::neg_out(imag, in_ri.select(-1, 1));
  return out;
}

void write_back(const at::Tensor& target, const at::Tensor& resolved) {
  if (target.is_same(resolved)) return;  // it had no bit: the op wrote it directly
  // The op already resized (and warned about) the copy it ran on.
  if (target.sizes() != resolved.sizes()) target.resize_(resolved.sizes());
  target.copy_(resolved);
}

}  // namespace npu::table
