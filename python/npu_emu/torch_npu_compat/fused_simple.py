"""torch_npu's simple fused/custom ops as `torch_npu.<name>`: the
torch.ops.npu operators dispatch/ops/fused_simple.cpp registers with
op-plugin's schemas (npu_fast_gelu launches CANN's aclnnFastGelu; the others
are compositions of native aten ops, see README "torch_npu")."""

from __future__ import annotations

import torch

import npu_emu  # noqa: F401  (loads the backend library that registers the ops)

# Exported as torch_npu.<name> = torch.ops.npu.<name>, as torch_npu does.
_OPS = (
    "npu_fast_gelu",
    "fast_gelu",
    "npu_gelu",
    "npu_silu",
    "npu_silu_",
    "npu_mish",
    "npu_confusion_transpose",
    "npu_linear",
    "npu_bmmV2",
    "npu_transpose",
    "npu_broadcast",
    "npu_slice",
    "npu_indexing",
    "npu_one_hot",
    "npu_pad",
    "npu_max",
    "npu_min",
    "npu_layer_norm_eval",
    "npu_softmax_cross_entropy_with_logits",
    "_npu_dtype_cast",
    "npu_dtype_cast_",
    # their backward ops, which torch_npu exposes too
    "npu_fast_gelu_backward",
    "npu_gelu_backward",
    "npu_silu_backward",
    "npu_mish_backward",
    "npu_dtype_cast_backward",
    "_npu_dtype_cast_backward",
    "npu_confusion_transpose_backward",
    "npu_linear_backward",
    "npu_bmm_v2_mat1_backward",
    "npu_bmm_v2_mat2_backward",
    "npu_max_backward",
    "npu_min_backward",
    "npu_softmax_cross_entropy_with_logits_backward",
    # torch_npu's private format cast (dispatch/format/format_ops.cpp)
    "_npu_format_cast",
)

for _name in _OPS:
    globals()[_name] = getattr(torch.ops.npu, _name)
del _name


def npu_dtype_cast(input: torch.Tensor, dtype: torch.dtype | int,  # noqa: A002  (torch_npu's argument name)
                   input_dtype: torch.dtype | int | None = None) -> torch.Tensor:
    """`input` converted to `dtype` (differentiable: the gradient is cast back);
    dtype a torch.dtype or its ScalarType code, as torch_npu takes it."""
    if not isinstance(dtype, (torch.dtype, int)) or isinstance(dtype, bool):
        raise TypeError(f"npu_dtype_cast: dtype must be a torch.dtype (or its int code), got {type(dtype).__name__}")
    return torch.ops.npu.npu_dtype_cast(input, dtype, input_dtype)


__all__ = [*_OPS, "npu_dtype_cast"]
