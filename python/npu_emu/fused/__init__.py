"""The Python side of torch_npu's fused ops in the `npu` namespace, registered
when npu-emu's backend activates (npu_emu._backend.activate), so that
torch.ops.npu.<name> differentiates, and the composed ops run, whatever the
script imported: `import npu_emu` alone, or torch_npu (npu-emu's compatible
module), which only re-exports the operators.

* autograd: the backward formulas of torch_npu's derivatives.yaml;
* composites: the ops npu-emu composes of native ones in Python.

The schemas and the aclnn-backed kernels are C++ (dispatch/ops/fused_*.cpp)."""

from npu_emu.fused import autograd, composites

autograd.register()
composites.register()
