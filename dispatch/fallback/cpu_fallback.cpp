// The boxed fallback for every aten op without a native npu kernel: inputs
// go to the CPU, the CPU kernel runs, results (including in-place and out=
// arguments) come back. Each use is counted; NPU_EMU_FALLBACK decides whether
// it is allowed silently, warned about once per op, or an error.
#include <map>
#include <mutex>
#include <set>

#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/fallback/fallback_arguments.h"
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
    TORCH_WARN(name, " has no native npu kernel in npu-emu; it runs on the CPU through the fallback "
               "(set NPU_EMU_FALLBACK=allow to silence, =error to forbid)");
  }
}

}  // namespace

void npu_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = op_name(op);
  switch (fallback_mode()) {
    case FallbackMode::Error:
      TORCH_CHECK(false, name, " has no native npu kernel and NPU_EMU_FALLBACK=error forbids the CPU fallback");
    case FallbackMode::Warn:
      warn_once(name);
      break;
    case FallbackMode::Allow:
      break;
  }
  check_written_arguments_on_npu(op, *stack);
  count_fallback(name);
  // Views cannot be emulated by copying: those must be native, and say so.
  at::native::cpu_fallback(op, stack, /*error_on_views=*/true);
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
