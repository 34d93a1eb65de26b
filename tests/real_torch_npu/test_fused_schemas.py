"""npu-emu's compatible module registers torch_npu's fused ops (issue 18's
list, their backward ops and torch_npu's format-cast overloads) with the
schemas the real torch_npu 2.13 wheel registers: every overload, argument
names and defaults included, and each is a `torch_npu.<name>` in both.
The real wheel answers in this process; npu-emu's own backend
(NPU_EMU_TORCH_NPU=compat) in a fresh interpreter of the same environment."""

from __future__ import annotations

import json

import torch
import torch_npu

from conftest import run_python

NAMES = [
    "npu_rms_norm", "npu_rms_norm_backward", "npu_add_rms_norm", "npu_fusion_attention", "npu_fusion_attention_grad",
    "npu_prompt_flash_attention", "npu_incre_flash_attention", "npu_rotary_mul", "npu_rotary_mul_backward",
    "npu_apply_rotary_pos_emb", "npu_swiglu", "npu_swiglu_backward", "npu_fast_gelu", "fast_gelu",
    "npu_fast_gelu_backward", "npu_gelu", "npu_gelu_backward", "npu_silu", "npu_silu_", "npu_silu_backward",
    "npu_mish", "npu_mish_backward", "npu_scaled_masked_softmax", "npu_scaled_masked_softmax_backward",
    "npu_dtype_cast", "_npu_dtype_cast", "npu_dtype_cast_", "npu_dtype_cast_backward", "_npu_dtype_cast_backward",
    "npu_confusion_transpose", "npu_confusion_transpose_backward", "npu_linear", "npu_linear_backward", "npu_bmmV2",
    "npu_bmm_v2_mat1_backward", "npu_bmm_v2_mat2_backward", "npu_transpose", "npu_broadcast", "npu_slice",
    "npu_indexing", "npu_one_hot", "npu_pad", "npu_max", "npu_max_backward", "npu_min", "npu_min_backward",
    "npu_layer_norm_eval", "npu_softmax_cross_entropy_with_logits", "npu_softmax_cross_entropy_with_logits_backward",
    "npu_dropout_with_add_softmax", "npu_dropout_with_add_softmax_backward", "npu_grouped_matmul",
    "npu_moe_gating_top_k_softmax", "scatter_update", "scatter_update_", "npu_format_cast", "npu_format_cast_",
    "_npu_format_cast",
]

_DUMP = r'''
import json
import torch
import torch_npu
assert "npu_emu" in torch_npu.__file__, torch_npu.__file__  # npu-emu's compatible module, not the wheel
names = %r
print(json.dumps({n: {"schemas": {k: str(s) for k, s in getattr(torch.ops.npu, n)._schemas.items()},
                      "attr": hasattr(torch_npu, n)} for n in names}))
'''


def _real() -> dict:
    return {n: {"schemas": {k: str(s) for k, s in getattr(torch.ops.npu, n)._schemas.items()},
                "attr": hasattr(torch_npu, n)} for n in NAMES}


def test_fused_op_schemas_match_the_wheel() -> None:
    result = run_python(_DUMP % (NAMES,), env={"NPU_EMU_TORCH_NPU": "compat"})
    assert result.returncode == 0, result.stderr[-3000:]
    mine = json.loads(result.stdout.strip().splitlines()[-1])
    real = _real()
    differ = {n: {"wheel": real[n], "npu-emu": mine[n]} for n in NAMES if real[n] != mine[n]}
    assert not differ, json.dumps(differ, indent=1)
