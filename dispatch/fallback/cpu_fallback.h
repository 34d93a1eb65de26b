// The counted CPU fallback, and calling it from a native kernel for operand
// dtypes the emulator's kernels do not cover (complex sin, say): those are
// fallbacks like any other op without a kernel, not errors.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include "dispatch/fallback/op_counters.h"

namespace npu {

// Runs `op` on the CPU with the npu arguments on `stack`, counted and subject
// to NPU_EMU_FALLBACK; results (and mutated arguments) come back to npu.
void npu_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// The aten operator `schema` ("exp", "div.Tensor_mode", "fmod.Tensor_out").
const c10::OperatorHandle& aten_op(const char* schema);

// Runs `args` through the fallback as aten `schema`; returns the stack left.
template <class... Args>
torch::jit::Stack run_fallback(const char* schema, const Args&... args) {
  torch::jit::Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.emplace_back(args), ...);
  npu_cpu_fallback(aten_op(schema), &stack);
  return stack;
}

// Runs `native()`; if the emulator refuses an operand's dtype (an aclnn entry
// reports "unsupported dtype", which surfaces as c10::NotImplementedError
// before anything is launched), runs aten `schema` ("exp", "fmod.Tensor")
// through the fallback with `args` instead and returns its result. Under
// NPU_EMU_FALLBACK=error the kernel's NotImplementedError stands.
template <class Native, class... Args>
at::Tensor native_or_fallback(const char* schema, Native&& native, const Args&... args) {
  try {
    return native();
  } catch (const c10::NotImplementedError&) {
    if (fallback_mode() == FallbackMode::Error) throw;  // the kernel's own "unsupported dtype"
    return run_fallback(schema, args...).back().toTensor();
  }
}

// The same for in-place and out= schemas: `mutated` (self or out), which the
// fallback writes, is the result.
template <class Native, class... Args>
at::Tensor& native_or_fallback_into(at::Tensor& mutated, const char* schema, Native&& native, const Args&... args) {
  try {
    return native();
  } catch (const c10::NotImplementedError&) {
    if (fallback_mode() == FallbackMode::Error) throw;
    run_fallback(schema, args...);
    return mutated;
  }
}

}  // namespace npu
