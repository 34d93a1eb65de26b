// Unary pointwise ops on npu: each one aclnn entry, described once (name,
// result kind, launch) and registered in its functional, in-place and out=
// forms. The result has self's shape and layout; integer inputs of the
// transcendental ops give the default float dtype, as on CPU.
#include <cfloat>

#include <c10/util/FunctionRef.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/pointwise_op.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

using Tensor = at::Tensor;
using Launch = c10::function_ref<void(const Tensor& self, const Tensor& out)>;

Tensor& unary_out(const char* name, ResultKind kind, const Tensor& self, Tensor& out, Launch launch) {
  check_npu(name, "self", self);
  pointwise_device(name, {&self, &out});
  const at::ScalarType result = result_dtype(kind, self.scalar_type());
  prepare_out(name, out, self.sizes(), result, {self});
  launch_into(out, result, [&](const Tensor& o) { launch(self, o); });
  return out;
}

Tensor unary(const char* name, ResultKind kind, const Tensor& self, Launch launch) {
  check_npu(name, "self", self);
  Tensor out = new_pointwise_result(self.sizes(), result_dtype(kind, self.scalar_type()), self.device(), self);
  if (out.numel() > 0) launch(self, out);
  return out;
}

struct UnaryOp {
  const char* name;
  ResultKind kind;
  void (*launch)(const Tensor& self, const Tensor& out);
  void (*check)(const Tensor& self) = nullptr;  // argument checks beyond dtype
};

// Dtypes the kernels do not cover (complex sin) run through the counted
// CPU fallback under the same schema.
template <const UnaryOp& Op>
Tensor unary_fn(const Tensor& self) {
  if constexpr (Op.check != nullptr) Op.check(self);
  return native_or_fallback(
      Op.name, [&] { return unary(Op.name, Op.kind, self, Op.launch); }, self);
}
template <const UnaryOp& Op>
Tensor& unary_inplace_fn(Tensor& self) {
  if constexpr (Op.check != nullptr) Op.check(self);
  static const std::string schema = std::string(Op.name) + "_";
  return native_or_fallback_into(
      self, schema.c_str(), [&]() -> Tensor& { return unary_out(Op.name, Op.kind, self, self, Op.launch); }, self);
}
template <const UnaryOp& Op>
Tensor& unary_out_fn(const Tensor& self, Tensor& out) {
  if constexpr (Op.check != nullptr) Op.check(self);
  static const std::string schema = std::string(Op.name) + ".out";
  return native_or_fallback_into(
      out, schema.c_str(), [&]() -> Tensor& { return unary_out(Op.name, Op.kind, self, out, Op.launch); }, self,
      out);
}

enum Forms { kFunctional = 1, kInplace = 2, kOut = 4, kAllForms = 7 };

// Registers `name`, `name_` and `name.out` (those in `forms`).
template <const UnaryOp& Op>
void register_unary(torch::Library& m, int forms = kAllForms) {
  const std::string name = Op.name;
  if (forms & kFunctional) m.impl(name.c_str(), TORCH_FN(unary_fn<Op>));
  if (forms & kInplace) m.impl((name + "_").c_str(), TORCH_FN(unary_inplace_fn<Op>));
  if (forms & kOut) m.impl((name + ".out").c_str(), TORCH_FN(unary_out_fn<Op>));
}

void neg_check(const Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
}

#define NPU_UNARY_LAUNCH(acl_op) [](const Tensor& self, const Tensor& out) { NPU_RUN(acl_op, self, out); }

constexpr UnaryOp kAbs{"abs", ResultKind::kReal, NPU_UNARY_LAUNCH(aclnnAbs)};
constexpr UnaryOp kNeg{"neg", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnNeg), neg_check};
constexpr UnaryOp kExp{"exp", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnExp)};
constexpr UnaryOp kExpm1{"expm1", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnExpm1)};
constexpr UnaryOp kLog{"log", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnLog)};
constexpr UnaryOp kLog1p{"log1p", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnLog1p)};
constexpr UnaryOp kLog2{"log2", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnLog2)};
constexpr UnaryOp kSqrt{"sqrt", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnSqrt)};
constexpr UnaryOp kRsqrt{"rsqrt", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnRsqrt)};
constexpr UnaryOp kSin{"sin", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnSin)};
constexpr UnaryOp kCos{"cos", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnCos)};
constexpr UnaryOp kTan{"tan", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnTan)};
constexpr UnaryOp kTanh{"tanh", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnTanh)};
constexpr UnaryOp kSigmoid{"sigmoid", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnSigmoid)};
constexpr UnaryOp kRelu{"relu", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnRelu)};
constexpr UnaryOp kSilu{"silu", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnSilu)};
constexpr UnaryOp kErf{"erf", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnErf)};
constexpr UnaryOp kFloor{"floor", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnFloor)};
constexpr UnaryOp kCeil{"ceil", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnCeil)};
constexpr UnaryOp kRound{"round", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnRound)};
constexpr UnaryOp kTrunc{"trunc", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnTrunc)};
constexpr UnaryOp kSign{"sign", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnSign)};
constexpr UnaryOp kReciprocal{"reciprocal", ResultKind::kFloating, NPU_UNARY_LAUNCH(aclnnReciprocal)};
constexpr UnaryOp kBitwiseNot{"bitwise_not", ResultKind::kPromoted, NPU_UNARY_LAUNCH(aclnnBitwiseNot)};
constexpr UnaryOp kLogicalNot{"logical_not", ResultKind::kBool, NPU_UNARY_LAUNCH(aclnnLogicalNot)};
constexpr UnaryOp kIsNan{"isnan", ResultKind::kBool, NPU_UNARY_LAUNCH(aclnnIsNan)};
constexpr UnaryOp kIsInf{"isinf", ResultKind::kBool, NPU_UNARY_LAUNCH(aclnnIsInf)};

// ---- the ones with parameters ------------------------------------------------

int64_t gelu_mode(c10::string_view approximate) {
  if (approximate == "none") return 0;
  if (approximate == "tanh") return 1;
  TORCH_CHECK(false, "approximate argument must be either none or tanh.");
}
Tensor& gelu_out(const Tensor& self, c10::string_view approximate, Tensor& out) {
  const int64_t mode = gelu_mode(approximate);
  return unary_out("gelu", ResultKind::kPromoted, self, out,
                   [mode](const Tensor& s, const Tensor& o) { NPU_RUN(aclnnGeluV2, s, mode, o); });
}
Tensor gelu(const Tensor& self, c10::string_view approximate) {
  const int64_t mode = gelu_mode(approximate);
  return unary("gelu", ResultKind::kPromoted, self,
               [mode](const Tensor& s, const Tensor& o) { NPU_RUN(aclnnGeluV2, s, mode, o); });
}
Tensor& gelu_(Tensor& self, c10::string_view approximate) { return gelu_out(self, approximate, self); }

Tensor& round_decimals_out(const Tensor& self, int64_t decimals, Tensor& out) {
  if (decimals == 0) return unary_out_fn<kRound>(self, out);
  return unary_out("round", ResultKind::kPromoted, self, out,
                   [decimals](const Tensor& s, const Tensor& o) { NPU_RUN(aclnnRoundDecimals, s, decimals, o); });
}
Tensor round_decimals(const Tensor& self, int64_t decimals) {
  if (decimals == 0) return unary_fn<kRound>(self);
  return unary("round", ResultKind::kPromoted, self,
               [decimals](const Tensor& s, const Tensor& o) { NPU_RUN(aclnnRoundDecimals, s, decimals, o); });
}
Tensor& round_decimals_(Tensor& self, int64_t decimals) { return round_decimals_out(self, decimals, self); }

// aclnnNanToNum takes float bounds; +-FLT_MAX asks for the output dtype's
// own extremes, PyTorch's defaults.
struct NanToNumBounds {
  float nan, posinf, neginf;
};
NanToNumBounds nan_to_num_bounds(std::optional<double> nan, std::optional<double> posinf,
                                 std::optional<double> neginf) {
  const auto clamp_to_float = [](double v) {
    return static_cast<float>(std::min<double>(std::max<double>(v, -FLT_MAX), FLT_MAX));
  };
  return {static_cast<float>(nan.value_or(0.0)), posinf ? clamp_to_float(*posinf) : FLT_MAX,
          neginf ? clamp_to_float(*neginf) : -FLT_MAX};
}
Tensor& nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf, Tensor& out) {
  const NanToNumBounds b = nan_to_num_bounds(nan, posinf, neginf);
  return unary_out("nan_to_num", ResultKind::kPromoted, self, out, [b](const Tensor& s, const Tensor& o) {
    NPU_RUN(aclnnNanToNum, s, b.nan, b.posinf, b.neginf, o);
  });
}
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  const NanToNumBounds b = nan_to_num_bounds(nan, posinf, neginf);
  return unary("nan_to_num", ResultKind::kPromoted, self, [b](const Tensor& s, const Tensor& o) {
    NPU_RUN(aclnnNanToNum, s, b.nan, b.posinf, b.neginf, o);
  });
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  return nan_to_num_out(self, nan, posinf, neginf, self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_unary<kAbs>(m);
  register_unary<kNeg>(m);
  register_unary<kExp>(m);
  register_unary<kExpm1>(m);
  register_unary<kLog>(m);
  register_unary<kLog1p>(m);
  register_unary<kLog2>(m);
  register_unary<kSqrt>(m);
  register_unary<kRsqrt>(m);
  register_unary<kSin>(m);
  register_unary<kCos>(m);
  register_unary<kTan>(m);
  register_unary<kTanh>(m);
  register_unary<kSigmoid>(m);
  register_unary<kRelu>(m, kFunctional | kInplace);
  register_unary<kSilu>(m);
  register_unary<kErf>(m);
  register_unary<kFloor>(m);
  register_unary<kCeil>(m);
  register_unary<kRound>(m);
  register_unary<kTrunc>(m);
  register_unary<kSign>(m);
  register_unary<kReciprocal>(m);
  register_unary<kBitwiseNot>(m);
  register_unary<kLogicalNot>(m);
  register_unary<kIsNan>(m, kFunctional);
  register_unary<kIsInf>(m, kFunctional);
  m.impl("gelu", TORCH_FN(gelu));
  m.impl("gelu_", TORCH_FN(gelu_));
  m.impl("gelu.out", TORCH_FN(gelu_out));
  m.impl("round.decimals", TORCH_FN(round_decimals));
  m.impl("round_.decimals", TORCH_FN(round_decimals_));
  m.impl("round.decimals_out", TORCH_FN(round_decimals_out));
  m.impl("nan_to_num", TORCH_FN(nan_to_num));
  m.impl("nan_to_num_", TORCH_FN(nan_to_num_));
  m.impl("nan_to_num.out", TORCH_FN(nan_to_num_out));
}

}  // namespace npu::ops
