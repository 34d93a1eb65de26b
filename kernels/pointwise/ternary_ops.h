// The ternary pointwise family (three inputs, broadcast together), with
// PyTorch CPU semantics. Operands may be tensors or host scalars; Clamp's
// bounds may be absent (a default-constructed Operand).
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"
#include "kernels/pointwise/operand.h"

namespace npu::kernels {

// Operands (a, b, c) and dtype support by the common dtype:
//   Where    (cond, self, other): cond ? self : other. cond is bool or uint8;
//            the dtype is that of self and other promoted; any dtype.
//   Lerp     (self, end, weight): self + weight * (end - self), evaluated from
//            the nearer end as PyTorch does; float.
//   Addcmul  (self, t1, t2): self + value * t1 * t2; int float.
//   Addcdiv  (self, t1, t2): self + value * t1 / t2; float.
//   Clamp    (self, min, max): min(max(self, min), max); NaN in any operand
//            gives NaN; at least one bound; int float.
// The element function a ternary kernel applies ("Fn": dispatch's op structs
// describe whole aten ops). Keep the order: values index internal tables.
enum class TernaryFn : int { Where, Lerp, Addcmul, Addcdiv, Clamp, kCount };

const char* ternary_op_name(TernaryFn op);

// The dtype `op` produces for these operands; `out` only hints the default
// float dtype. Throws KernelError for unsupported dtypes or missing operands.
DType ternary_result_dtype(TernaryFn op, const Operand& a, const Operand& b, const Operand& c, DType out);

// out = op(a, b, c). out must have the broadcast shape of the present
// operands; its dtype may be anything the result can be cast to. `value` is
// Addcmul's and Addcdiv's multiplier.
void ternary(TernaryFn op, const TensorView& out, const Operand& a, const Operand& b, const Operand& c,
             const Scalar& value = Scalar::from_int(1));

}  // namespace npu::kernels
