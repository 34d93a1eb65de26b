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
