// The boxed fallback for every aten op without a native npu kernel: inputs
// go to the CPU, the CPU kernel runs, results (including in-place and out=
// arguments, and arguments the kernel writes without a schema annotation)
// come back. Each use is counted; NPU_EMU_FALLBACK decides whether it is
// allowed silently, warned about once per op, or an error. An op PyTorch has
// no CPU kernel for is refused with an error naming it.
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/debug/format_trace.h"
#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/fallback/fallback_arguments.h"
#include "dispatch/fallback/hidden_writes.h"
#include "dispatch/fallback/op_counters.h"

namespace npu {

namespace {

std::string op_name(const c10::OperatorHandle& op) {
  const auto& name = op.schema().operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

void warn_once(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(name).second) {
    // torch_npu's wording (scripts and its tests look for it), then npu-emu's switches.
    TORCH_WARN("CAUTION: The operator '", name, "' is not currently supported on the NPU backend and will fall back "
               "to run on the CPU. This may have performance implications. (npu-emu: NPU_EMU_FALLBACK=allow silences "
               "this, =error forbids the fallback)");
  }
}

// PyTorch's fallback would only say "Could not run ... from the 'CPU' backend"
// after our warning that the op runs on the CPU; say what is really wrong.
void check_has_cpu_kernel(const c10::OperatorHandle& op, const std::string& name) {
  TORCH_CHECK_NOT_IMPLEMENTED(op.hasComputedKernelForDispatchKey(c10::DispatchKey::CPU), name,
                              " is not supported on npu yet: npu-emu has no native npu kernel for it and PyTorch "
                              "has no CPU kernel for it (it exists only for other devices such as CUDA), so "
                              "npu-emu's CPU fallback cannot run it. Run the code that calls it on the CPU, or use "
                              "an equivalent composed of other ops.");
}

// A CPU copy of an npu argument that the CPU kernel writes without a schema
// annotation, and the npu tensor the result goes back into.
struct HiddenWriteBack {
  at::Tensor npu;
  at::Tensor cpu;
};

// Puts CPU copies of the npu arguments `op` writes without annotation on the
// stack in place of the npu tensors (PyTorch's fallback passes CPU tensors
// through unchanged, so the kernel writes these copies), and returns them.
std::vector<HiddenWriteBack> stage_hidden_writes(const c10::OperatorHandle& op, torch::jit::Stack& stack) {
  std::vector<HiddenWriteBack> staged;
  const auto positions = hidden_writes(op, stack);
  if (positions.empty()) return staged;
  const std::size_t first = stack.size() - op.schema().arguments().size();
  std::size_t first_tensor = stack.size();  // outputs go to the device of the first tensor argument: keep it npu
  for (std::size_t i = first; i < stack.size(); ++i) {
    if (stack[i].isTensor()) {
      first_tensor = i;
      break;
    }
  }
  for (const auto position : positions) {
    auto& value = stack[first + position];
    if (!value.isTensor()) continue;  // an optional argument given as None
    const at::Tensor tensor = value.toTensor();
    if (!tensor.defined() || tensor.device().type() != c10::DeviceType::PrivateUse1) continue;
    TORCH_INTERNAL_ASSERT(first + position != first_tensor, op.schema().name(),
                          ": a hidden write into the first tensor argument would move the outputs to the CPU");
    at::Tensor copy = tensor.cpu();  // a new CPU tensor: the device differs
    value = copy;
    staged.push_back({tensor, std::move(copy)});
  }
  return staged;
}

// An npu argument the op writes (out=, in-place self) that carries the conj
// or neg bit, and the resolved copy the fallback runs on in its place.
struct MathBitWriteBack {
  at::Tensor npu;
  at::Tensor resolved;
};

// The Conjugate/Negative keys resolve a written argument's bit before the
// backend for most ops, but let some through (linalg_solve_triangular.out,
// dot.out, vdot.out: their CUDA/CPU kernels read the bits). PyTorch's
// fallback would then copy the result back with _copy_from_and_resize, whose
// dst the conj fallback only sees as an input: it writes a resolved clone and
// the npu tensor keeps its old values. So such arguments are resolved here,
// and the results copied back with copy_, which honours the bits.
std::vector<MathBitWriteBack> stage_math_bit_writes(const c10::OperatorHandle& op, torch::jit::Stack& stack) {
  std::vector<MathBitWriteBack> staged;
  const auto& arguments = op.schema().arguments();
  const std::size_t first = stack.size() - arguments.size();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto* alias = arguments[i].alias_info();
    auto& value = stack[first + i];
    if (alias == nullptr || !alias->isWrite() || !value.isTensor()) continue;
    const at::Tensor tensor = value.toTensor();
    if (!tensor.defined() || tensor.device().type() != c10::DeviceType::PrivateUse1) continue;
    if (!tensor.is_conj() && !tensor.is_neg()) continue;
    at::Tensor resolved = tensor.resolve_conj().resolve_neg();
    value = resolved;
    staged.push_back({tensor, std::move(resolved)});
  }
  return staged;
}

void write_back_math_bits(const std::vector<MathBitWriteBack>& staged, torch::jit::Stack& stack, std::size_t returns) {
  for (const auto& s : staged) {
    at::native::resize_output(s.npu, s.resolved.sizes());
    s.npu.copy_(s.resolved);
    for (std::size_t r = stack.size() - returns; r < stack.size(); ++r) {
      if (stack[r].isTensor() && stack[r].toTensor().is_same(s.resolved)) stack[r] = s.npu;
    }
  }
}

}  // namespace

void admit_fallback(const std::string& name) {
  switch (fallback_mode()) {
    case FallbackMode::Error:
      TORCH_CHECK(false, name, " has no native npu kernel and ", fallback_forbidden_by(), " forbids the CPU fallback");
    case FallbackMode::Warn:
      warn_once(name);
      break;
    case FallbackMode::Allow:
      break;
  }
  count_fallback(name);
}

std::string fallback_op_name(const c10::OperatorHandle& op) { return op_name(op); }

void npu_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = op_name(op);
  check_has_cpu_kernel(op, name);
  admit_fallback(name);
  check_written_arguments_on_npu(op, *stack);
  const auto math_bits = stage_math_bit_writes(op, *stack);
  const auto hidden = stage_hidden_writes(op, *stack);
  // The trace needs the arguments, which the fallback consumes.
  std::optional<torch::jit::Stack> traced_inputs;
  if (trace::formats_on()) traced_inputs = *stack;
  // Views cannot be emulated by copying: those must be native, and say so.
  at::native::cpu_fallback(op, stack, /*error_on_views=*/true);
  for (const auto& staged : hidden) staged.npu.copy_(staged.cpu);
  write_back_math_bits(math_bits, *stack, op.schema().returns().size());
  if (traced_inputs) trace::fallback(name, *traced_inputs, *stack);
}


const c10::OperatorHandle& aten_op(const char* schema) {
  // Handles are stable for the process; the lookup parses the name each time.
  static std::mutex mutex;
  static std::map<std::string, c10::OperatorHandle> handles;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(schema);
  if (it == handles.end()) {
    const std::string full = std::string("aten::") + schema;
    const auto dot = full.find('.');
    const std::string name = full.substr(0, dot);
    const std::string overload = dot == std::string::npos ? "" : full.substr(dot + 1);
    it = handles.emplace(schema, c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), overload.c_str())).first;
  }
  return it->second;
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&npu_cpu_fallback>());
}

}  // namespace npu
