// torch.autocast("npu"): one boxed kernel per row of autocast_rules.h on the
// AutocastPrivateUse1 key. The key is active only inside an enabled npu
// autocast region (PyTorch excludes it otherwise), and only for ops with an
// npu tensor among their inputs; every op without a row falls through.
//
// The casts use ATen's at::autocast::cached_cast, so they are what CUDA's
// autocast does: only floating npu tensors other than float64 are cast, they
// are recorded by autograd (the op saves its inputs in the reduced dtype),
// and the reduced-precision copies of float32 leaf parameters that require
// grad are cached until the outermost region exits.
#include <ATen/autocast_mode.h>
#include <torch/library.h>

#include <memory>
#include <optional>
#include <string>

#include "dispatch/autocast/autocast_rules.h"

namespace npu::autocast {

namespace {

constexpr auto kDevice = c10::DeviceType::PrivateUse1;

at::ScalarType autocast_dtype() { return at::autocast::get_lower_precision_fp_from_device_type(kDevice); }

bool eligible(const at::Tensor& t) { return at::autocast::is_eligible(t, kDevice); }

// Casts the floating npu tensors of one argument (a Tensor, Tensor? or Tensor[]).
// Other lists (index_put's Tensor?[] indices) hold index tensors, never cast.
void cast_argument(c10::IValue& arg, at::ScalarType to) {
  if (arg.isTensor()) {
    arg = at::autocast::cached_cast(to, arg.toTensor(), kDevice);
  } else if (arg.isTensorList()) {
    c10::List<at::Tensor> cast;
    for (const at::Tensor& t : arg.toTensorList()) {
      cast.push_back(at::autocast::cached_cast(to, t, kDevice));
    }
    arg = std::move(cast);
  }
}

// The widest floating type among the inputs, starting from the autocast dtype:
// float32 wins over the autocast dtype (and once reached, over anything);
// float64 inputs are left alone.
at::ScalarType widest_input_type(const c10::OperatorHandle& op, const torch::jit::Stack& stack, size_t first) {
  const at::ScalarType low = autocast_dtype();
  at::ScalarType widest = low;
  const auto consider = [&](const at::Tensor& t) {
    if (!eligible(t)) {
      return;
    }
    const auto type = t.scalar_type();
    if (type == at::kFloat || widest == at::kFloat) {
      widest = at::kFloat;
    } else {
      TORCH_CHECK(type == low, "torch.autocast(\"npu\", dtype=", low, "): ", op.schema().name(),
                  " got a ", type, " input; its inputs may be float32 or ", low,
                  " (cast the input with .float() or .to(", low, "))");
    }
  };
  for (size_t i = first; i < stack.size(); ++i) {
    if (stack[i].isTensor()) {
      consider(stack[i].toTensor());
    } else if (stack[i].isTensorList()) {
      for (const at::Tensor& t : stack[i].toTensorList()) {
        consider(t);
      }
    }
  }
  return widest;
}

class AutocastKernel final : public c10::OperatorKernel {
 public:
  explicit AutocastKernel(const Rule& rule) : rule_(rule) {
    if (rule.policy == Policy::Fp32AppendDtype) {
      redispatch_ = c10::Dispatcher::singleton().findSchemaOrThrow(std::string(rule.op).c_str(),
                                                                   std::string(rule.redispatch_overload).c_str());
    }
  }

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/, torch::jit::Stack* stack) {
    // Casts and the op itself run below autocast (like CUDA's wrappers).
    const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastPrivateUse1);
    const size_t num_args = op.schema().arguments().size();
    const size_t first = stack->size() - num_args;
    switch (rule_.policy) {
      case Policy::LowerPrecision:
        cast_all(*stack, first, autocast_dtype());
        break;
      case Policy::Fp32:
        cast_all(*stack, first, at::kFloat);
        break;
      case Policy::Promote:
        cast_all(*stack, first, widest_input_type(op, *stack, first));
        break;
      case Policy::Fp32SetOptDtype:
        set_float_dtype(op, *stack, first);
        break;
      case Policy::Fp32AppendDtype:
        append_dtype(*stack, first);
        redispatch_->callBoxed(stack);
        return;
      case Policy::Banned:
        TORCH_CHECK(false, op.schema().name(),
                    " (torch.nn.functional.binary_cross_entropy, nn.BCELoss) is refused inside torch.autocast(\"npu\"): "
                    "its input is usually a sigmoid output, which float16 rounds to exactly 0 or 1. Use "
                    "binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss on the logits instead (safe under "
                    "autocast), or compute the loss outside the autocast region in float32");
    }
    op.callBoxed(stack);
  }

 private:
  static void cast_all(torch::jit::Stack& stack, size_t first, at::ScalarType to) {
    for (size_t i = first; i < stack.size(); ++i) {
      cast_argument(stack[i], to);
    }
  }

  // softmax, sum, cumsum ...: an unset `dtype` becomes float32 when the
  // first input is a floating npu tensor; an explicit dtype is kept.
  static void set_float_dtype(const c10::OperatorHandle& op, torch::jit::Stack& stack, size_t first) {
    const c10::IValue& self = stack[first];
    if (!self.isTensor() || !eligible(self.toTensor())) {
      return;
    }
    const auto index = op.schema().argumentIndexWithName("dtype");
    TORCH_INTERNAL_ASSERT(index.has_value(), op.schema().name(), " has no dtype argument (autocast_rules.h)");
    c10::IValue& dtype = stack[first + *index];
    if (dtype.isNone()) {
      dtype = at::kFloat;
    }
  }

  // norm.Scalar -> norm.ScalarOpt_dtype(..., dtype): float32 for a floating
  // npu input, else the input's own type (no promotion happens).
  static void append_dtype(torch::jit::Stack& stack, size_t first) {
    const at::Tensor& self = stack[first].toTensor();
    stack.emplace_back(eligible(self) ? at::kFloat : self.scalar_type());
  }

  const Rule& rule_;
  std::optional<c10::OperatorHandle> redispatch_;
};

torch::CppFunction kernel_for(const Rule& rule) {
  return torch::CppFunction::makeFromBoxedFunctor(std::make_unique<AutocastKernel>(rule));
}

std::string qualified_name(const Rule& rule) {
  std::string name(rule.op);
  if (!rule.overload.empty()) {
    name += '.';
    name += rule.overload;
  }
  return name;
}

}  // namespace

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
  for (const Rule& rule : kRules) {
    m.impl(qualified_name(rule).c_str(), kernel_for(rule));
  }
}

}  // namespace npu::autocast
