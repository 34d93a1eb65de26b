"""torch_npu's fused LLM ops, as `torch_npu.<name>` and `torch.ops.npu.<name>`.

The schemas are torch_npu's (dispatch/ops/fused_schemas.cpp) and the kernels
are aclnn ops of npu-emu's op table (ops/table/fused.yaml, norm.yaml's
aclnnRmsNorm/-Grad, attention.yaml's aclnnFlashAttentionScore/-Grad), launched
by dispatch/ops/fused_ops.cpp and fused_attention.cpp. This module adds what
torch_npu defines in Python or in its derivatives.yaml:

* autograd, with the backward ops torch_npu's derivatives name
  (npu_rms_norm_backward, npu_rotary_mul_backward, npu_swiglu_backward,
  npu_scaled_masked_softmax_backward, npu_fusion_attention_grad);
* npu_dropout_with_add_softmax(_backward) and npu_grouped_matmul, composed of
  native ops (add, softmax, native_dropout, matmul): npu-emu has no aclnn op of
  their own, and the composition differentiates itself.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch
from torch import Tensor

_NPU = torch.ops.npu


# --- autograd (torch_npu's derivatives.yaml) ---------------------------------


def _rms_norm_setup(ctx: Any, inputs: tuple, output: tuple) -> None:
    self, gamma, _eps = inputs
    ctx.save_for_backward(self, gamma, output[1])


def _rms_norm_backward(ctx: Any, grad_y: Tensor, _grad_rstd: Tensor) -> tuple:
    self, gamma, rstd = ctx.saved_tensors
    dx, dgamma = _NPU.npu_rms_norm_backward(grad_y, self, gamma, rstd)
    return dx, dgamma.to(gamma.dtype), None


def _rotary_mul_setup(ctx: Any, inputs: tuple, output: Tensor) -> None:
    self, r1, r2, mode, _rotate = inputs
    ctx.mode = mode
    ctx.save_for_backward(self, r1, r2)


def _rotary_mul_backward(ctx: Any, grad: Tensor) -> tuple:
    self, r1, r2 = ctx.saved_tensors
    dx, dr1, dr2 = _NPU.npu_rotary_mul_backward(grad, self, r1, r2, ctx.mode)
    return dx, dr1, dr2, None, None


def _swiglu_setup(ctx: Any, inputs: tuple, output: Tensor) -> None:
    self, dim = inputs
    ctx.dim = dim
    ctx.save_for_backward(self)


def _swiglu_backward(ctx: Any, grad: Tensor) -> tuple:
    (self,) = ctx.saved_tensors
    return _NPU.npu_swiglu_backward(grad, self, ctx.dim), None


def _scaled_masked_softmax_setup(ctx: Any, inputs: tuple, output: Tensor) -> None:
    _x, mask, scale, fixed_triu_mask = inputs
    ctx.scale = scale
    ctx.fixed_triu_mask = fixed_triu_mask
    ctx.save_for_backward(output, mask)


def _scaled_masked_softmax_backward(ctx: Any, grad: Tensor) -> tuple:
    y, mask = ctx.saved_tensors
    dx = _NPU.npu_scaled_masked_softmax_backward(grad, y, mask, ctx.scale, ctx.fixed_triu_mask)
    return dx, None, None, None


_FA_ARGS = (
    "query key value head_num input_layout pse padding_mask atten_mask scale keep_prob pre_tockens "
    "next_tockens inner_precise prefix actual_seq_qlen actual_seq_kvlen sparse_mode gen_mask_parallel sync "
    "softmax_layout sink dropout_mask seed offset"
).split()


def _fusion_attention_setup(ctx: Any, inputs: tuple, output: tuple) -> None:
    args = dict(zip(_FA_ARGS, inputs))
    ctx.args = {k: v for k, v in args.items() if not isinstance(v, Tensor)}
    out, softmax_max, softmax_sum, softmax_out, seed, offset, numels = output
    ctx.philox = (seed, offset, numels)
    ctx.save_for_backward(
        args["query"], args["key"], args["value"], args["pse"], args["padding_mask"], args["atten_mask"],
        softmax_max, softmax_sum, softmax_out, out,
    )


def _fusion_attention_backward(ctx: Any, grad_out: Tensor, *_unused: Any) -> tuple:
    q, k, v, pse, padding_mask, atten_mask, softmax_max, softmax_sum, softmax_in, out = ctx.saved_tensors
    a = ctx.args
    seed, offset, numels = ctx.philox
    dq, dk, dv, _dpse, _dsink = _NPU.npu_fusion_attention_grad(
        q, k, v, grad_out, a["head_num"], a["input_layout"], pse=pse, padding_mask=padding_mask,
        atten_mask=atten_mask, softmax_max=softmax_max, softmax_sum=softmax_sum, softmax_in=softmax_in,
        attention_in=out, scale_value=a["scale"], keep_prob=a["keep_prob"], pre_tockens=a["pre_tockens"],
        next_tockens=a["next_tockens"], inner_precise=a["inner_precise"], seed=seed, offset=offset,
        numels=numels, prefix=a["prefix"], actual_seq_qlen=a["actual_seq_qlen"],
        actual_seq_kvlen=a["actual_seq_kvlen"], sparse_mode=a["sparse_mode"],
        gen_mask_parallel=a["gen_mask_parallel"], sync=a["sync"], softmax_layout=a["softmax_layout"],
    )
    return (dq, dk, dv) + (None,) * (len(_FA_ARGS) - 3)


def _register_autograd() -> None:
    reg = torch.library.register_autograd
    reg("npu::npu_rms_norm", _rms_norm_backward, setup_context=_rms_norm_setup)
    reg("npu::npu_rotary_mul", _rotary_mul_backward, setup_context=_rotary_mul_setup)
    reg("npu::npu_swiglu", _swiglu_backward, setup_context=_swiglu_setup)
    reg("npu::npu_scaled_masked_softmax", _scaled_masked_softmax_backward,
        setup_context=_scaled_masked_softmax_setup)
    reg("npu::npu_fusion_attention", _fusion_attention_backward, setup_context=_fusion_attention_setup)


# --- ops composed of native ones ---------------------------------------------


def _dropout_with_add_softmax(self: Tensor, x1: Tensor, alpha: Any, prob: float, dim: int) -> tuple:
    softmax_out = torch.softmax(torch.add(x1, self, alpha=alpha), dim)
    out, keep = torch.native_dropout(softmax_out, prob, True)
    return keep.to(torch.uint8), softmax_out, out


def _dropout_with_add_softmax_backward(grad: Tensor, mask: Tensor, softmax_out: Tensor, alpha: Any,
                                       prob: float, dim: int) -> tuple:
    keep_scale = 0.0 if prob >= 1.0 else 1.0 / (1.0 - prob)
    g = grad * mask.to(grad.dtype) * keep_scale
    d_in = softmax_out * (g - (g * softmax_out).sum(dim, keepdim=True))
    return d_in * alpha, d_in


_QUANT_ARGS = ("scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale", "activation_input",
               "activation_quant_scale", "activation_quant_offset")


def _group_sizes(group_list: Sequence[int], group_list_type: int, total: int) -> list[int]:
    values = [int(v) for v in group_list]
    if group_list_type == 1:
        sizes = values
    elif group_list_type == 0:
        sizes = [b - a for a, b in zip([0] + values[:-1], values)]
    else:
        raise ValueError(f"npu_grouped_matmul: group_list_type must be 0 (cumulative) or 1 (counts), "
                         f"got {group_list_type}")
    if any(s < 0 for s in sizes) or sum(sizes) > total:
        raise ValueError(f"npu_grouped_matmul: group_list {values} does not split the {total} rows of x")
    return sizes


def _grouped_matmul(x: list[Tensor], weight: list[Tensor], group_list: Any = None, *, bias: Any = None,
                    split_item: int | None = 0, group_type: int | None = None, group_list_type: int | None = 0,
                    act_type: int | None = 0, **rest: Any) -> list[Tensor]:
    given = [name for name in _QUANT_ARGS if rest.get(name) is not None]
    if given:
        raise NotImplementedError(f"npu_grouped_matmul: {', '.join(given)} (quantized grouped matmul) is not "
                                  "emulated by npu-emu; leave them None")
    if act_type not in (None, 0):
        raise NotImplementedError(f"npu_grouped_matmul: act_type {act_type} is not emulated: use 0 and apply "
                                  "the activation afterwards")
    if rest.get("output_dtype") is not None:
        raise NotImplementedError("npu_grouped_matmul: output_dtype is not emulated: leave it None")
    split_item = 0 if split_item is None else split_item
    if split_item not in (0, 1, 2, 3):
        raise ValueError(f"npu_grouped_matmul: split_item must be 0, 1, 2 or 3, got {split_item}")
    weights = list(weight)
    if len(weights) == 1 and weights[0].dim() == 3:
        weights = list(weights[0].unbind(0))
    biases = list(bias) if bias is not None else []
    if len(biases) == 1 and biases[0].dim() == 2 and len(weights) > 1:
        biases = list(biases[0].unbind(0))
    if group_list is not None:
        if group_type not in (None, 0):
            raise NotImplementedError(f"npu_grouped_matmul: group_type {group_type} is not emulated: 0 "
                                      "(split x's rows) or -1 (no grouping)")
        if len(x) != 1:
            raise ValueError("npu_grouped_matmul: with group_list, x must be one tensor [M, K]")
        gl = group_list.tolist() if isinstance(group_list, Tensor) else list(group_list)
        sizes = _group_sizes(gl, group_list_type or 0, x[0].shape[0])
        if len(sizes) != len(weights):
            raise ValueError(f"npu_grouped_matmul: group_list has {len(sizes)} groups, weight {len(weights)}")
        xs = list(x[0][: sum(sizes)].split(sizes, 0))
    else:
        if len(x) != len(weights):
            raise ValueError(f"npu_grouped_matmul: x has {len(x)} tensors, weight {len(weights)}")
        xs = list(x)
    if biases and len(biases) != len(weights):
        raise ValueError(f"npu_grouped_matmul: bias has {len(biases)} tensors, weight {len(weights)}")
    ys = [torch.matmul(xi, wi) for xi, wi in zip(xs, weights)]
    if biases:
        ys = [y + b for y, b in zip(ys, biases)]
    if split_item in (2, 3):
        return [torch.cat(ys, 0)]
    return ys


def _register_composites() -> None:
    lib = torch.library.Library("npu", "IMPL")  # noqa: TOR901 (kept alive below)
    lib.impl("npu_dropout_with_add_softmax", _dropout_with_add_softmax, "CompositeImplicitAutograd")
    lib.impl("npu_dropout_with_add_softmax_backward", _dropout_with_add_softmax_backward,
             "CompositeImplicitAutograd")
    lib.impl("npu_grouped_matmul", _grouped_matmul, "CompositeImplicitAutograd")
    lib.impl("npu_grouped_matmul.List", _grouped_matmul, "CompositeImplicitAutograd")
    _LIBRARIES.append(lib)


_LIBRARIES: list[torch.library.Library] = []
_register_autograd()
_register_composites()

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

__all__ = [
    "npu_rms_norm", "npu_add_rms_norm", "npu_rotary_mul", "npu_apply_rotary_pos_emb", "npu_swiglu",
    "npu_fusion_attention", "npu_fusion_attention_grad", "npu_prompt_flash_attention",
    "npu_incre_flash_attention", "npu_scaled_masked_softmax", "npu_dropout_with_add_softmax",
    "npu_grouped_matmul", "npu_moe_gating_top_k_softmax", "scatter_update", "scatter_update_",
]
