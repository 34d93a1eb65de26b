// Arguments that an aten op's CPU kernel writes although its schema does not
// annotate them as mutable (no `Tensor(a!)`). PyTorch's boxed CPU fallback
// copies back only annotated arguments, so without this list such writes land
// in a temporary CPU copy and are lost (native_batch_norm's running_mean and
// running_var: BatchNorm/InstanceNorm statistics that never change on npu).
#pragma once

#include <cstddef>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace npu {

// Positions (within `op`'s arguments, whose values are the last
// op.schema().arguments().size() entries of `stack`) of the tensor arguments
// that `op`'s CPU kernel writes without a schema annotation, for this call's
// argument values (native_batch_norm writes them only when training). Empty
// for every op outside the audited list.
std::vector<std::size_t> hidden_writes(const c10::OperatorHandle& op, const torch::jit::Stack& stack);

}  // namespace npu
