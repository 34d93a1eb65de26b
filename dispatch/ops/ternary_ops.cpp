// where, lerp, addcmul and addcdiv on npu: three operands broadcast together,
// one aclnn entry each, functional, in-place and out= forms. Operand dtypes
// the kernels do not cover (complex) run through the counted CPU fallback.
#include <ATen/native/TypeProperties.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/pointwise_op.h"

namespace npu::ops {

namespace {

using Tensor = at::Tensor;
using Scalar = at::Scalar;

// ---- where --------------------------------------------------------------------

Tensor where_condition(const Tensor& condition) {
  TORCH_CHECK(condition.scalar_type() == at::kBool || condition.scalar_type() == at::kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  // A CPU scalar condition keeps its own dtype (the others take the result's).
  return is_cpu_scalar(condition) ? condition.to(c10::DeviceType::PrivateUse1) : condition;
}

void where_launch(at::TensorList t, const Tensor& out) { NPU_RUN(aclnnSWhere, t[0], t[1], t[2], out); }

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const at::ScalarType result = at::result_type(self, other);
  return native_or_fallback(
      "where.self",
      [&] { return pointwise("where", {where_condition(condition), self, other}, result, result, where_launch); },
      condition, self, other);
}
Tensor& where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  const at::ScalarType result = at::result_type(self, other);
  return native_or_fallback_into(
      out, "where.self_out",
      [&]() -> Tensor& {
        return pointwise_out("where", {where_condition(condition), self, other}, result, result, out, where_launch);
      },
      condition, self, other, out);
}

// ---- lerp -----------------------------------------------------------------------

void check_lerp_dtype(const Tensor& self, const Tensor& arg, const char* name) {
  TORCH_CHECK(self.scalar_type() == arg.scalar_type(), "expected dtype ", self.scalar_type(), " for `", name,
              "` but got dtype ", arg.scalar_type());
}

Tensor lerp_scalar(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_lerp_dtype(self, end, "end");
  return native_or_fallback(
      "lerp.Scalar",
      [&] {
        return pointwise("lerp", {self, end}, self.scalar_type(), self.scalar_type(),
                         [&](at::TensorList t, const Tensor& o) { NPU_RUN(aclnnLerps, t[0], t[1], weight, o); });
      },
      self, end, weight);
}
Tensor& lerp_scalar_out(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out) {
  check_lerp_dtype(self, end, "end");
  return native_or_fallback_into(
      out, "lerp.Scalar_out",
      [&]() -> Tensor& {
        return pointwise_out("lerp", {self, end}, self.scalar_type(), self.scalar_type(), out,
                             [&](at::TensorList t, const Tensor& o) { NPU_RUN(aclnnLerps, t[0], t[1], weight, o); });
      },
      self, end, weight, out);
}
Tensor& lerp_scalar_(Tensor& self, const Tensor& end, const Scalar& weight) {
  check_lerp_dtype(self, end, "end");
  return native_or_fallback_into(
      self, "lerp_.Scalar",
      [&]() -> Tensor& {
        return pointwise_("lerp_", self, {self, end}, self.scalar_type(), self.scalar_type(),
                          [&](at::TensorList t, const Tensor& o) { NPU_RUN(aclnnLerps, t[0], t[1], weight, o); });
      },
      self, end, weight);
}

void check_lerp_tensor(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp_dtype(self, end, "end");
  check_lerp_dtype(self, weight, "weight");
}
void lerp_tensor_launch(at::TensorList t, const Tensor& out) { NPU_RUN(aclnnLerp, t[0], t[1], t[2], out); }

Tensor lerp_tensor(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp_tensor(self, end, weight);
  return native_or_fallback(
      "lerp.Tensor",
      [&] { return pointwise("lerp", {self, end, weight}, self.scalar_type(), self.scalar_type(), lerp_tensor_launch); },
      self, end, weight);
}
Tensor& lerp_tensor_out(const Tensor& self, const Tensor& end, const Tensor& weight, Tensor& out) {
  check_lerp_tensor(self, end, weight);
  return native_or_fallback_into(
      out, "lerp.Tensor_out",
      [&]() -> Tensor& {
        return pointwise_out("lerp", {self, end, weight}, self.scalar_type(), self.scalar_type(), out,
                             lerp_tensor_launch);
      },
      self, end, weight, out);
}
Tensor& lerp_tensor_(Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp_tensor(self, end, weight);
  return native_or_fallback_into(
      self, "lerp_.Tensor",
      [&]() -> Tensor& {
        return pointwise_("lerp_", self, {self, end, weight}, self.scalar_type(), self.scalar_type(),
                          lerp_tensor_launch);
      },
      self, end, weight);
}

// ---- addcmul, addcdiv -------------------------------------------------------------

at::ScalarType promoted(const Tensor& a, const Tensor& b, const Tensor& c) {
  return at::native::result_type(at::ArrayRef<Tensor>({a, b, c}));
}

void check_addcdiv(const Tensor& tensor1, const Tensor& tensor2) {
  TORCH_CHECK(!(at::isIntegralType(tensor1.scalar_type(), true) && at::isIntegralType(tensor2.scalar_type(), true)),
              "Integer division with addcdiv is no longer supported; compute "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for the old behaviour, or use "
              "floating-point tensor1/tensor2 for true division.");
}

// addcmul and addcdiv differ only in their entry and argument check.
template <bool kDivide>
struct Addc {
  static constexpr const char* name = kDivide ? "addcdiv" : "addcmul";
  static auto launch(const Scalar& value) {
    return [&value](at::TensorList t, const Tensor& out) {
      if constexpr (kDivide) {
        NPU_RUN(aclnnAddcdiv, t[0], t[1], t[2], value, out);
      } else {
        NPU_RUN(aclnnAddcmul, t[0], t[1], t[2], value, out);
      }
    };
  }
  static void check(const Tensor& t1, const Tensor& t2) {
    if constexpr (kDivide) check_addcdiv(t1, t2);
  }
  static Tensor functional(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
    check(t1, t2);
    const at::ScalarType r = promoted(self, t1, t2);
    return native_or_fallback(
        name, [&] { return pointwise(name, {self, t1, t2}, r, r, launch(value)); }, self, t1, t2, value);
  }
  static Tensor& out(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, Tensor& result) {
    check(t1, t2);
    const at::ScalarType r = promoted(self, t1, t2);
    return native_or_fallback_into(
        result, kDivide ? "addcdiv.out" : "addcmul.out",
        [&]() -> Tensor& { return pointwise_out(name, {self, t1, t2}, r, r, result, launch(value)); }, self, t1, t2,
        value, result);
  }
  static Tensor& inplace(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
    check(t1, t2);
    const at::ScalarType r = promoted(self, t1, t2);
    return native_or_fallback_into(
        self, kDivide ? "addcdiv_" : "addcmul_",
        [&]() -> Tensor& { return pointwise_(name, self, {self, t1, t2}, r, r, launch(value)); }, self, t1, t2, value);
  }
};

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("where.self", TORCH_FN(where));
  m.impl("where.self_out", TORCH_FN(where_out));
  m.impl("lerp.Scalar", TORCH_FN(lerp_scalar));
  m.impl("lerp.Scalar_out", TORCH_FN(lerp_scalar_out));
  m.impl("lerp_.Scalar", TORCH_FN(lerp_scalar_));
  m.impl("lerp.Tensor", TORCH_FN(lerp_tensor));
  m.impl("lerp.Tensor_out", TORCH_FN(lerp_tensor_out));
  m.impl("lerp_.Tensor", TORCH_FN(lerp_tensor_));
  m.impl("addcmul", TORCH_FN(Addc<false>::functional));
  m.impl("addcmul.out", TORCH_FN(Addc<false>::out));
  m.impl("addcmul_", TORCH_FN(Addc<false>::inplace));
  m.impl("addcdiv", TORCH_FN(Addc<true>::functional));
  m.impl("addcdiv.out", TORCH_FN(Addc<true>::out));
  m.impl("addcdiv_", TORCH_FN(Addc<true>::inplace));
}

}  // namespace npu::ops
