"""torch_npu's fused LLM ops, as `torch_npu.<name>` = `torch.ops.npu.<name>`.

The schemas are torch_npu's (rows of ops/table/fused.yaml `schemas:`) and the kernels
are aclnn ops of npu-emu's op table (ops/table/fused.yaml, norm.yaml's
aclnnRmsNorm/-Grad, attention.yaml's aclnnFlashAttentionScore/-Grad), launched
by dispatch/ops/fused_ops.cpp and fused_attention.cpp. Their autograd and the
ops composed of native ones (npu_dropout_with_add_softmax, npu_grouped_matmul)
are registered by npu_emu.fused when the backend activates, so torch.ops.npu
differentiates without this module.
"""

from __future__ import annotations

import torch

import npu_emu  # noqa: F401  (activates the backend, which registers the ops' autograd)

_NPU = torch.ops.npu

# torch_npu.<name>: the operators themselves, as torch_npu exposes them.
npu_rms_norm = _NPU.npu_rms_norm
npu_add_rms_norm = _NPU.npu_add_rms_norm
npu_rotary_mul = _NPU.npu_rotary_mul
npu_apply_rotary_pos_emb = _NPU.npu_apply_rotary_pos_emb
npu_swiglu = _NPU.npu_swiglu
npu_fusion_attention = _NPU.npu_fusion_attention
npu_fusion_attention_grad = _NPU.npu_fusion_attention_grad
npu_prompt_flash_attention = _NPU.npu_prompt_flash_attention
npu_incre_flash_attention = _NPU.npu_incre_flash_attention
npu_scaled_masked_softmax = _NPU.npu_scaled_masked_softmax
npu_dropout_with_add_softmax = _NPU.npu_dropout_with_add_softmax
npu_grouped_matmul = _NPU.npu_grouped_matmul
npu_moe_gating_top_k_softmax = _NPU.npu_moe_gating_top_k_softmax
scatter_update = _NPU.scatter_update
scatter_update_ = _NPU.scatter_update_
# The backward ops, which torch_npu exposes too.
npu_rms_norm_backward = _NPU.npu_rms_norm_backward
npu_rotary_mul_backward = _NPU.npu_rotary_mul_backward
npu_swiglu_backward = _NPU.npu_swiglu_backward
npu_scaled_masked_softmax_backward = _NPU.npu_scaled_masked_softmax_backward
npu_dropout_with_add_softmax_backward = _NPU.npu_dropout_with_add_softmax_backward

__all__ = [
    "npu_rms_norm", "npu_add_rms_norm", "npu_rotary_mul", "npu_apply_rotary_pos_emb", "npu_swiglu",
    "npu_fusion_attention", "npu_fusion_attention_grad", "npu_prompt_flash_attention",
    "npu_incre_flash_attention", "npu_scaled_masked_softmax", "npu_dropout_with_add_softmax",
    "npu_grouped_matmul", "npu_moe_gating_top_k_softmax", "scatter_update", "scatter_update_",
    "npu_rms_norm_backward", "npu_rotary_mul_backward", "npu_swiglu_backward", "npu_scaled_masked_softmax_backward",
    "npu_dropout_with_add_softmax_backward",
]
