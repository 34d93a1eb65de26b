// The shared shape of PyTorch binary ops on npu: type promotion, broadcasting,
// out= resizing and casting, overlap checks, CPU scalars as scalar operands.
// Each op supplies its aclnn launches and the kind of its result.
#pragma once

#include <functional>

#include <ATen/ATen.h>
#include <ATen/native/BinaryOps.h>
#include <torch/library.h>

#include "dispatch/fallback/capability.h"
#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/pointwise_op.h"

namespace npu::ops {

struct BinaryLaunch {
  // out = self (op) other; out has the broadcast shape and a dtype the
  // result can be cast to (the aclnn entries convert into it).
  std::function<void(const at::Tensor& self, const at::Tensor& other, const at::Tensor& out)> tensor;
  // out = self (op) scalar; empty when the op has no such entry.
  std::function<void(const at::Tensor& self, const at::Scalar& other, const at::Tensor& out)> scalar;
  bool commutative = false;  // a CPU-scalar `self` may swap with `other`
  ResultKind kind = ResultKind::kPromoted;
  // out = scalar (op) other; empty when the op has no such entry.
  std::function<void(const at::Scalar& self, const at::Tensor& other, const at::Tensor& out)> scalar_self;
};

// The dtype `launch` produces for these operands.
at::ScalarType binary_result_dtype(const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch);

// Computes `launch` for out= semantics; returns out.
at::Tensor& binary_out(const char* name, const at::Tensor& self, const at::Tensor& other, at::Tensor& out,
                       const BinaryLaunch& launch);
// Functional form: allocates the result.
at::Tensor binary(const char* name, const at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch);
// In-place form: self is the output; the result must fit self's shape and dtype.
at::Tensor& binary_(const char* name, at::Tensor& self, const at::Tensor& other, const BinaryLaunch& launch);

// A binary op that is a BinaryLaunch and nothing more, as a constant the
// schema functions below are instantiated on, with the names PyTorch gives
// its schemas (which differ from op to op: "fmod.Tensor_out", "atan2.out").
struct BinaryOp {
  const char* name;
  BinaryLaunch (*make)();
  const char* functional;
  const char* inplace;  // null: the op has no in-place form
  const char* out;
  void (*check)(const at::Tensor& self, const at::Tensor& other) = nullptr;  // argument checks beyond dtype/shape
  // What the op's one aclnn entry supports, decided before launching; null:
  // not described yet (only the entry's "unsupported dtype" sends it to the
  // fallback). Ops with a scalar entry too are not described here yet.
  const AclnnCapability* capability = nullptr;
};

template <const BinaryOp& Op>
const BinaryLaunch& launch_of() {
  static const BinaryLaunch launch = Op.make();
  return launch;
}
// Whether the op's aclnn entry can compute self (op) other: its symbol is
// loaded and it computes in the operands' common dtype. Under
// NPU_EMU_FALLBACK=error a "no" is an error naming what is missing.
template <const BinaryOp& Op>
bool binary_runs_native(const char* schema, const at::Tensor& self, const at::Tensor& other) {
  if constexpr (Op.capability == nullptr) {
    return true;
  } else {
    return run_native(*Op.capability, schema, {at::result_type(self, other)});
  }
}

// Dtypes the kernels do not cover (uint16 atan2, complex pow) and entries the
// loaded ACL library lacks run through the counted CPU fallback under the
// same schema. native_or_fallback still catches the entry's refusal of what
// the capability does not describe (an out= dtype, ops without capability).
template <const BinaryOp& Op>
at::Tensor binary_fn(const at::Tensor& self, const at::Tensor& other) {
  if constexpr (Op.check != nullptr) Op.check(self, other);
  if (!binary_runs_native<Op>(Op.functional, self, other)) return fallback_call<at::Tensor>(Op.functional, self, other);
  return npu::native_or_fallback(
      Op.functional, [&] { return binary(Op.name, self, other, launch_of<Op>()); }, self, other);
}
template <const BinaryOp& Op>
at::Tensor& binary_inplace_fn(at::Tensor& self, const at::Tensor& other) {
  if constexpr (Op.check != nullptr) Op.check(self, other);
  if (!binary_runs_native<Op>(Op.inplace, self, other)) return fallback_call<at::Tensor&>(Op.inplace, self, other);
  return npu::native_or_fallback_into(
      self, Op.inplace, [&]() -> at::Tensor& { return binary_(Op.name, self, other, launch_of<Op>()); }, self, other);
}
template <const BinaryOp& Op>
at::Tensor& binary_out_fn(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  if constexpr (Op.check != nullptr) Op.check(self, other);
  if (!binary_runs_native<Op>(Op.out, self, other)) return fallback_call<at::Tensor&>(Op.out, self, other, out);
  return npu::native_or_fallback_into(
      out, Op.out, [&]() -> at::Tensor& { return binary_out(Op.name, self, other, out, launch_of<Op>()); }, self,
      other, out);
}
// Scalar overloads (eq.Scalar, __lshift__.Scalar): the scalar as a wrapped number.
template <const BinaryOp& Op>
at::Tensor binary_scalar_fn(const at::Tensor& self, const at::Scalar& other) {
  return binary_fn<Op>(self, at::native::wrapped_scalar_tensor(other));
}
template <const BinaryOp& Op>
at::Tensor& binary_scalar_inplace_fn(at::Tensor& self, const at::Scalar& other) {
  return binary_inplace_fn<Op>(self, at::native::wrapped_scalar_tensor(other));
}
template <const BinaryOp& Op>
at::Tensor& binary_scalar_out_fn(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return binary_out_fn<Op>(self, at::native::wrapped_scalar_tensor(other), out);
}

// Registers the op's functional, in-place and out= schemas.
template <const BinaryOp& Op>
void register_binary(torch::Library& m) {
  m.impl(Op.functional, TORCH_FN(binary_fn<Op>));
  if (Op.inplace != nullptr) m.impl(Op.inplace, TORCH_FN(binary_inplace_fn<Op>));
  m.impl(Op.out, TORCH_FN(binary_out_fn<Op>));
}
// Scalar overloads (eq.Scalar, pow.Tensor_Scalar) of the same op.
template <const BinaryOp& Op>
void register_binary_scalar(torch::Library& m, const char* functional, const char* inplace, const char* out) {
  m.impl(functional, TORCH_FN(binary_scalar_fn<Op>));
  if (inplace != nullptr) m.impl(inplace, TORCH_FN(binary_scalar_inplace_fn<Op>));
  if (out != nullptr) m.impl(out, TORCH_FN(binary_scalar_out_fn<Op>));
}

}  // namespace npu::ops

// A BinaryLaunch from an entry pair out = op(self, other) / op(self, scalar).
#define NPU_BINARY_LAUNCH(tensor_op, scalar_op, commutative, kind)                                                  \
  ::npu::ops::BinaryLaunch {                                                                                        \
    [](const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) { NPU_RUN(tensor_op, a, b, out); },         \
        [](const at::Tensor& a, const at::Scalar& b, const at::Tensor& out) { NPU_RUN(scalar_op, a, b, out); },     \
        commutative, kind, {}                                                                                       \
  }
// The same for ops with only a tensor-tensor entry.
#define NPU_BINARY_TENSOR_LAUNCH(tensor_op, kind)                                                                  \
  ::npu::ops::BinaryLaunch {                                                                                        \
    [](const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) { NPU_RUN(tensor_op, a, b, out); }, {},     \
        false, kind, {}                                                                                             \
  }
