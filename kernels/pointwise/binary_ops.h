// The binary pointwise family: out = a (op) b with broadcasting, PyTorch CPU
// semantics. Either operand may be a host scalar (an Operand holding a
// Scalar), which takes part in type promotion as a "wrapped number".
#pragma once

#include "kernels/core/scalar.h"
#include "kernels/core/tensor_view.h"
#include "kernels/pointwise/operand.h"

namespace npu::kernels {

// Dtype support, by the common dtype of a and b ("->f": bool/integer compute
// in the default float dtype; complex means complex64):
//   Add, Mul                               bool int float complex
//   Sub                                    int float complex
//   Div                                    ->f float complex
//   DivTrunc, DivFloor, Remainder, Fmod    int float  (integer / 0 throws
//                                                      KernelError "ZeroDivisionError")
//   Pow, Maximum, Minimum                  int float (+bool for max/min)
//   Atan2                                  ->f float
//   BitwiseAnd/Or/Xor                      bool int
//   LeftShift, RightShift                  int
//   LogicalAnd/Or/Xor                      any -> bool
//   Eq, Ne                                 any -> bool
//   Lt, Le, Gt, Ge                         bool int float -> bool
//   Copysign, Xlogy, Xlog1py, Igamma(c)    ->f float  (Xlogy .. Igammac in double)
//   Fmax, Fmin, Heaviside                  bool int float
//   Nextafter                              float
// The element function a binary kernel applies ("Fn": dispatch's op structs
// describe whole aten ops). Keep the order: values index internal tables.
enum class BinaryFn : int {
  Add,        // a + alpha * b
  Sub,        // a - alpha * b
  Mul, Div,
  DivTrunc,   // trunc(a / b)
  DivFloor,   // floor(a / b), Python's //
  Remainder,  // Python's %: sign of b
  Fmod,       // C's fmod: sign of a
  Pow, Atan2,
  Maximum, Minimum,  // NaN-propagating
  Hypot,             // sqrt(a^2 + b^2) without overflow
  LogAddExp,         // log(exp(a) + exp(b))
  LogAddExp2,        // log2(2^a + 2^b)
  BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift, RightShift,
  LogicalAnd, LogicalOr, LogicalXor,
  Eq, Ne, Lt, Le, Gt, Ge,
  Copysign,          // |a| with b's sign
  Fmax, Fmin,        // NaN-ignoring max/min
  Heaviside,         // 0 below 0, b at 0, 1 above
  Nextafter,         // next representable value after a toward b
  Xlogy, Xlog1py,    // a log(b), a log1p(b); 0 where a == 0 and b is not NaN
  Igamma, Igammac,   // regularized incomplete gamma P(a, b), Q(a, b)
  kCount
};

const char* binary_op_name(BinaryFn op);

// The dtype `op` produces for these operands (PyTorch's result dtype); `out`
// only hints the default float dtype. Throws KernelError for unsupported
// dtypes, a floating alpha with integer operands, and integer tensors raised
// to a negative integer scalar power.
DType binary_result_dtype(BinaryFn op, const Operand& a, const Operand& b, DType out,
                          const Scalar& alpha = Scalar::from_int(1));

// The dtype `op` computes in and the one it produces for these operands,
// with binary_result_dtype's checks.
struct BinaryDtypes {
  DType compute;
  DType result;
};
BinaryDtypes binary_dtypes(BinaryFn op, const Operand& a, const Operand& b, DType out,
                           const Scalar& alpha = Scalar::from_int(1));

// out = a (op) b. out must have the broadcast shape of a and b; its dtype may
// be anything the result dtype can be cast to. alpha is used by Add and Sub.
void binary(BinaryFn op, const TensorView& out, const Operand& a, const Operand& b,
            const Scalar& alpha = Scalar::from_int(1));
// The same with the dtypes binary_dtypes gave for these operands and out's
// dtype, and out's shape already checked against the operands' broadcast
// shape (what an aclnn entry did when it prepared the task): skips deriving
// them again. Each operand is still checked to broadcast to out.
void binary(BinaryFn op, const BinaryDtypes& dtypes, const TensorView& out, const Operand& a, const Operand& b,
            const Scalar& alpha);

// out = a + alpha * b
inline void add(const TensorView& out, const TensorView& a, const TensorView& b, const Scalar& alpha) {
  binary(BinaryFn::Add, out, a, b, alpha);
}
// out = a * b
inline void mul(const TensorView& out, const TensorView& a, const TensorView& b) {
  binary(BinaryFn::Mul, out, a, b);
}

}  // namespace npu::kernels
