// NPU_EMU_TRACE=formats: every format change and every CPU fallback, as
// events handed to a Python sink (npu_emu.debug.trace writes them as JSON
// lines with the Python call site). Off by default; when off, each hook is
// one relaxed atomic load on paths that are not the launch path (format
// casts, the CPU fallback), and no RecordFunction observer is installed.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <ATen/Tensor.h>
#include <ATen/core/stack.h>

#include "device_model/format.h"

namespace npu::trace {

extern std::atomic<bool> g_formats_on;

inline bool formats_on() { return g_formats_on.load(std::memory_order_relaxed); }

// The aten ops (and autograd nodes) running on this thread, outermost first;
// recorded only while the trace is on.
std::vector<std::string> op_stack();
// The outermost of op_stack() ("" when none): the op the user called.
std::string current_op();

// `src` (in `from`) became `dst` (in `to`); `bytes` moved (read + written).
// `kind`: "cast" (data re-laid), "relabel" (base to base, no data moved).
void format_change(const char* kind, const at::Tensor& src, model::Format from, model::Format to, int64_t bytes);

// A private-format storage was created by an op's rule (format_origin.h).
void format_created(const at::Tensor& t);

// `op` ran on the CPU fallback with npu tensors `inputs` (the stack before
// the call) and `outputs` (the stack after it).
void fallback(const std::string& op, const torch::jit::Stack& inputs, const torch::jit::Stack& outputs);

}  // namespace npu::trace
