// The arguments the CPU fallback hands to CPU kernels: which devices they may
// be on, and how npu tensors become CPU tensors (fallback_arguments.cpp).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace npu {

// Throws PyTorch's "Expected all tensors to be on the same device" when an
// argument `op` writes (an out= tensor, the self of an in-place op) is not an
// npu tensor while one it reads is: run on the CPU, such an op would
// otherwise fill the CPU tensor silently, which no device backend allows.
void check_written_arguments_on_npu(const c10::OperatorHandle& op, const torch::jit::Stack& stack);

}  // namespace npu
