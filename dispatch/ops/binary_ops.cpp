// Binary arithmetic, bitwise and logical ops on npu: each a BinaryLaunch
// (its aclnn entries and result kind) behind the shared binary shape, with
// PyTorch's functional, in-place and out= schemas. Operand dtypes the
// kernels do not cover run through the counted CPU fallback.
#include "dispatch/ops/binary_op.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

using Tensor = at::Tensor;
using Scalar = at::Scalar;

// ---- add, sub (with alpha), mul ---------------------------------------------

BinaryLaunch make_add_launch(const Scalar& alpha) {
  return {[alpha](const Tensor& a, const Tensor& b, const Tensor& out) { NPU_RUN(aclnnAdd, a, b, alpha, out); },
          [alpha](const Tensor& a, const Scalar& b, const Tensor& out) { NPU_RUN(aclnnAdds, a, b, alpha, out); },
          alpha.equal(1), ResultKind::kPromoted, {}};
}

BinaryLaunch make_sub_launch(const Scalar& alpha) {
  return {[alpha](const Tensor& a, const Tensor& b, const Tensor& out) { NPU_RUN(aclnnSub, a, b, alpha, out); },
          [alpha](const Tensor& a, const Scalar& b, const Tensor& out) { NPU_RUN(aclnnSubs, a, b, alpha, out); },
          false, ResultKind::kPromoted, {}};
}

// The launch of add or sub for one alpha. alpha = 1, by far the most common,
// uses one built once: building a BinaryLaunch costs heap allocations.
template <BinaryLaunch (*Make)(const Scalar&)>
class AlphaLaunch {
 public:
  explicit AlphaLaunch(const Scalar& alpha) {
    if (!alpha.equal(1)) scaled_.emplace(Make(alpha));
  }
  const BinaryLaunch& get() const { return scaled_ ? *scaled_ : unit(); }

 private:
  static const BinaryLaunch& unit() {
    static const BinaryLaunch launch = Make(1);
    return launch;
  }
  std::optional<BinaryLaunch> scaled_;
};
using AddLaunch = AlphaLaunch<make_add_launch>;
using SubLaunch = AlphaLaunch<make_sub_launch>;

Tensor& add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return native_or_fallback_into(
      out, "add.out", [&]() -> Tensor& { return binary_out("add", self, other, out, AddLaunch(alpha).get()); }, self,
      other, alpha, out);
}
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return native_or_fallback(
      "add.Tensor", [&] { return binary("add", self, other, AddLaunch(alpha).get()); }, self, other, alpha);
}
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  at::native::alpha_check(at::result_type(self, other), alpha);
  return native_or_fallback_into(
      self, "add_.Tensor", [&]() -> Tensor& { return binary_("add_", self, other, AddLaunch(alpha).get()); }, self, other,
      alpha);
}

void sub_checks(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  at::native::sub_check(self, other);
  at::native::alpha_check(at::result_type(self, other), alpha);
}
Tensor& sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  sub_checks(self, other, alpha);
  return native_or_fallback_into(
      out, "sub.out", [&]() -> Tensor& { return binary_out("sub", self, other, out, SubLaunch(alpha).get()); }, self,
      other, alpha, out);
}
Tensor sub_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  sub_checks(self, other, alpha);
  return native_or_fallback(
      "sub.Tensor", [&] { return binary("sub", self, other, SubLaunch(alpha).get()); }, self, other, alpha);
}
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  sub_checks(self, other, alpha);
  return native_or_fallback_into(
      self, "sub_.Tensor", [&]() -> Tensor& { return binary_("sub_", self, other, SubLaunch(alpha).get()); }, self, other,
      alpha);
}
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return sub_tensor(other, self, alpha); }

constexpr BinaryOp kMul{"mul", [] { return NPU_BINARY_LAUNCH(aclnnMul, aclnnMuls, true, ResultKind::kPromoted); },
                        "mul.Tensor", "mul_.Tensor", "mul.out"};

// ---- div with rounding modes, floor_divide --------------------------------

// aclnnDivMod's modes: 0 true division, 1 trunc, 2 floor.
int rounding_mode_code(std::optional<c10::string_view> mode) {
  if (!mode) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TORCH_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

BinaryLaunch div_launch(int mode) {
  if (mode == 0) {
    return NPU_BINARY_LAUNCH(aclnnDiv, aclnnDivs, false, ResultKind::kFloating);
  }
  return {[mode](const Tensor& a, const Tensor& b, const Tensor& out) { NPU_RUN(aclnnDivMod, a, b, mode, out); },
          [mode](const Tensor& a, const Scalar& b, const Tensor& out) { NPU_RUN(aclnnDivMods, a, b, mode, out); },
          false, ResultKind::kPromoted, {}};
}

Tensor& div_mode_out(const Tensor& self, const Tensor& other, std::optional<c10::string_view> mode, Tensor& out) {
  return native_or_fallback_into(
      out, "div.out_mode",
      [&]() -> Tensor& { return binary_out("div", self, other, out, div_launch(rounding_mode_code(mode))); }, self,
      other, mode, out);
}
Tensor div_mode(const Tensor& self, const Tensor& other, std::optional<c10::string_view> mode) {
  return native_or_fallback(
      "div.Tensor_mode", [&] { return binary("div", self, other, div_launch(rounding_mode_code(mode))); }, self,
      other, mode);
}
Tensor& div_mode_(Tensor& self, const Tensor& other, std::optional<c10::string_view> mode) {
  return native_or_fallback_into(
      self, "div_.Tensor_mode",
      [&]() -> Tensor& { return binary_("div_", self, other, div_launch(rounding_mode_code(mode))); }, self, other,
      mode);
}
Tensor& div_out(const Tensor& self, const Tensor& other, Tensor& out) {
  return div_mode_out(self, other, std::nullopt, out);
}
Tensor div(const Tensor& self, const Tensor& other) { return div_mode(self, other, std::nullopt); }
Tensor& div_(Tensor& self, const Tensor& other) { return div_mode_(self, other, std::nullopt); }
Tensor& floor_divide_out(const Tensor& self, const Tensor& other, Tensor& out) {
  return div_mode_out(self, other, "floor", out);
}
Tensor floor_divide(const Tensor& self, const Tensor& other) { return div_mode(self, other, "floor"); }
Tensor& floor_divide_(Tensor& self, const Tensor& other) { return div_mode_(self, other, "floor"); }

// ---- remainder, fmod, pow, atan2, maximum, minimum --------------------------

const BinaryLaunch& remainder_launch() {
  static const BinaryLaunch launch = [] {
    BinaryLaunch l = NPU_BINARY_LAUNCH(aclnnRemainderTensorTensor, aclnnRemainderTensorScalar, false,
                                       ResultKind::kPromoted);
    l.scalar_self = [](const Scalar& a, const Tensor& b, const Tensor& out) {
      NPU_RUN(aclnnRemainderScalarTensor, a, b, out);
    };
    return l;
  }();
  return launch;
}

const BinaryLaunch& pow_launch() {
  static const BinaryLaunch launch = [] {
    BinaryLaunch l = NPU_BINARY_LAUNCH(aclnnPowTensorTensor, aclnnPowTensorScalar, false, ResultKind::kPromoted);
    l.scalar_self = [](const Scalar& a, const Tensor& b, const Tensor& out) {
      NPU_RUN(aclnnPowScalarTensor, a, b, out);
    };
    return l;
  }();
  return launch;
}

Tensor remainder_scalar_self(const Scalar& self, const Tensor& other) {
  return native_or_fallback(
      "remainder.Scalar_Tensor",
      [&] { return binary("remainder", at::native::wrapped_scalar_tensor(self), other, remainder_launch()); }, self,
      other);
}

Tensor pow_scalar_self(const Scalar& self, const Tensor& exponent) {
  return native_or_fallback(
      "pow.Scalar", [&] { return binary("pow", at::native::wrapped_scalar_tensor(self), exponent, pow_launch()); },
      self, exponent);
}
Tensor& pow_scalar_self_out(const Scalar& self, const Tensor& exponent, Tensor& out) {
  return native_or_fallback_into(
      out, "pow.Scalar_out",
      [&]() -> Tensor& { return binary_out("pow", at::native::wrapped_scalar_tensor(self), exponent, out, pow_launch()); },
      self, exponent, out);
}

void reject_complex(const char* name, const Tensor& self, const Tensor& other) {
  TORCH_CHECK(!self.is_complex() && !other.is_complex(), name, " not implemented for complex tensors.");
}

// ---- the ops that are a BinaryLaunch and nothing more ------------------------

void maximum_check(const Tensor& a, const Tensor& b) { reject_complex("maximum", a, b); }
void minimum_check(const Tensor& a, const Tensor& b) { reject_complex("minimum", a, b); }

// What the tensor-only entries compute in (kernels/binary_ops.cpp's table:
// real kinds, over the dtypes pointwise kernels are built for), until the op
// table generates these.
constexpr DTypeSet kPointwiseReal = dtypes::kBool | dtypes::kIntegral | dtypes::kFloating;
constexpr AclnnCapability kAtan2Capability = NPU_ACLNN_CAPABILITY(aclnnAtan2, kPointwiseReal);
constexpr AclnnCapability kMaximumCapability = NPU_ACLNN_CAPABILITY(aclnnMaximum, kPointwiseReal);
constexpr AclnnCapability kMinimumCapability = NPU_ACLNN_CAPABILITY(aclnnMinimum, kPointwiseReal);

constexpr BinaryOp kRemainder{"remainder", [] { return remainder_launch(); },
                              "remainder.Tensor", "remainder_.Tensor", "remainder.Tensor_out"};
constexpr BinaryOp kFmod{"fmod", [] { return NPU_BINARY_LAUNCH(aclnnFmodTensor, aclnnFmodScalar, false, ResultKind::kPromoted); },
                         "fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out"};
constexpr BinaryOp kPow{"pow", [] { return pow_launch(); }, "pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out"};
constexpr BinaryOp kAtan2{"atan2", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnAtan2, ResultKind::kFloating); },
                          "atan2", "atan2_", "atan2.out", nullptr, &kAtan2Capability};
constexpr BinaryOp kMaximum{"maximum", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnMaximum, ResultKind::kPromoted); },
                            "maximum", nullptr, "maximum.out", maximum_check, &kMaximumCapability};
constexpr BinaryOp kMinimum{"minimum", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnMinimum, ResultKind::kPromoted); },
                            "minimum", nullptr, "minimum.out", minimum_check, &kMinimumCapability};
constexpr BinaryOp kBitwiseAnd{"bitwise_and", [] { return NPU_BINARY_LAUNCH(aclnnBitwiseAndTensor, aclnnBitwiseAndScalar, true, ResultKind::kPromoted); },
                               "bitwise_and.Tensor", "bitwise_and_.Tensor", "bitwise_and.Tensor_out"};
constexpr BinaryOp kBitwiseOr{"bitwise_or", [] { return NPU_BINARY_LAUNCH(aclnnBitwiseOrTensor, aclnnBitwiseOrScalar, true, ResultKind::kPromoted); },
                              "bitwise_or.Tensor", "bitwise_or_.Tensor", "bitwise_or.Tensor_out"};
constexpr BinaryOp kBitwiseXor{"bitwise_xor", [] { return NPU_BINARY_LAUNCH(aclnnBitwiseXorTensor, aclnnBitwiseXorScalar, true, ResultKind::kPromoted); },
                               "bitwise_xor.Tensor", "bitwise_xor_.Tensor", "bitwise_xor.Tensor_out"};
constexpr BinaryOp kLeftShift{"bitwise_left_shift", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnLeftShift, ResultKind::kPromoted); },
                              "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor", "bitwise_left_shift.Tensor_out"};
constexpr BinaryOp kRightShift{"bitwise_right_shift", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnRightShift, ResultKind::kPromoted); },
                               "bitwise_right_shift.Tensor", "bitwise_right_shift_.Tensor", "bitwise_right_shift.Tensor_out"};
constexpr BinaryOp kLogicalAnd{"logical_and", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnLogicalAnd, ResultKind::kBool); },
                               "logical_and", "logical_and_", "logical_and.out"};
constexpr BinaryOp kLogicalOr{"logical_or", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnLogicalOr, ResultKind::kBool); },
                              "logical_or", "logical_or_", "logical_or.out"};
constexpr BinaryOp kLogicalXor{"logical_xor", [] { return NPU_BINARY_TENSOR_LAUNCH(aclnnLogicalXor, ResultKind::kBool); },
                               "logical_xor", "logical_xor_", "logical_xor.out"};

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("add.Tensor", TORCH_FN(add));
  m.impl("add_.Tensor", TORCH_FN(add_));
  m.impl("sub.out", TORCH_FN(sub_out));
  m.impl("sub.Tensor", TORCH_FN(sub_tensor));
  m.impl("sub_.Tensor", TORCH_FN(sub_));
  m.impl("rsub.Tensor", TORCH_FN(rsub));
  register_binary<kMul>(m);
  m.impl("div.out", TORCH_FN(div_out));
  m.impl("div.Tensor", TORCH_FN(div));
  m.impl("div_.Tensor", TORCH_FN(div_));
  m.impl("div.out_mode", TORCH_FN(div_mode_out));
  m.impl("div.Tensor_mode", TORCH_FN(div_mode));
  m.impl("div_.Tensor_mode", TORCH_FN(div_mode_));
  m.impl("floor_divide", TORCH_FN(floor_divide));
  m.impl("floor_divide_.Tensor", TORCH_FN(floor_divide_));
  m.impl("floor_divide.out", TORCH_FN(floor_divide_out));
  register_binary<kRemainder>(m);
  m.impl("remainder.Scalar_Tensor", TORCH_FN(remainder_scalar_self));
  register_binary<kFmod>(m);
  register_binary<kPow>(m);
  register_binary_scalar<kPow>(m, "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Scalar_out");
  m.impl("pow.Scalar", TORCH_FN(pow_scalar_self));
  m.impl("pow.Scalar_out", TORCH_FN(pow_scalar_self_out));
  register_binary<kAtan2>(m);
  register_binary<kMaximum>(m);
  register_binary<kMinimum>(m);
  register_binary<kBitwiseAnd>(m);
  register_binary<kBitwiseOr>(m);
  register_binary<kBitwiseXor>(m);
  register_binary<kLeftShift>(m);
  register_binary<kRightShift>(m);
  m.impl("__lshift__.Tensor", TORCH_FN(binary_fn<kLeftShift>));
  m.impl("__ilshift__.Tensor", TORCH_FN(binary_inplace_fn<kLeftShift>));
  m.impl("__rshift__.Tensor", TORCH_FN(binary_fn<kRightShift>));
  m.impl("__irshift__.Tensor", TORCH_FN(binary_inplace_fn<kRightShift>));
  register_binary_scalar<kLeftShift>(m, "__lshift__.Scalar", "__ilshift__.Scalar", nullptr);
  register_binary_scalar<kRightShift>(m, "__rshift__.Scalar", "__irshift__.Scalar", nullptr);
  register_binary<kLogicalAnd>(m);
  register_binary<kLogicalOr>(m);
  register_binary<kLogicalXor>(m);
}

}  // namespace npu::ops
