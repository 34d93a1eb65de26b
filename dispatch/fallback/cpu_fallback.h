// The counted CPU fallback. Native kernels that cannot run an op (a dtype its
// kernel lacks, a symbol the ACL library lacks) decide so before launching
// (capability.h) and call it through fallback_call.h.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include "dispatch/fallback/op_counters.h"

namespace npu {

// Runs `op` on the CPU with the npu arguments on `stack`, counted and subject
// to NPU_EMU_FALLBACK; results (and mutated arguments) come back to npu.
void npu_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Applies NPU_EMU_FALLBACK to one use of the fallback by aten op `name`
// ("add.Tensor"): raises under =error, warns once under =warn; counts it.
// For fallbacks other than npu_cpu_fallback (the sparse one).
void admit_fallback(const std::string& name);

// "name.overload" of `op`, the key of the fallback counters.
std::string fallback_op_name(const c10::OperatorHandle& op);

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

}  // namespace npu
