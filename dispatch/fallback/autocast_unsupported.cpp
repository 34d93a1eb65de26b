// torch.autocast("npu") is not implemented yet (no op has an autocast rule
// for npu). Without a kernel for the AutocastPrivateUse1 key, PyTorch would
// either fail with an internal dispatcher message or, for ops it passes
// through, silently compute in float32 where the user asked for float16.
// Instead, every op on npu tensors inside an enabled npu autocast region
// raises one error saying so and what to use instead. Outside such a region
// (and with enabled=False) the key is excluded and this never runs.
#include <torch/library.h>

namespace npu {

namespace {

void autocast_unsupported(const c10::OperatorHandle& op, torch::jit::Stack* /*stack*/) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "torch.autocast(\"npu\") is not supported on npu yet (", op.schema().name(),
                              " was called on npu tensors in an enabled npu autocast region): run the npu code in "
                              "float32 without autocast (or with enabled=False), or use torch.autocast(\"cpu\") "
                              "for CPU tensors");
}

}  // namespace

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&autocast_unsupported>());
}

}  // namespace npu
