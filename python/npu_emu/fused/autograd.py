"""Autograd of torch_npu's fused ops on torch.ops.npu (torch_npu's
derivatives.yaml): each forward's backward is the `npu` backward op torch_npu
names (npu_rms_norm_backward, npu_rotary_mul_backward, npu_swiglu_backward,
npu_scaled_masked_softmax_backward, npu_fusion_attention_grad), registered
with torch.library.register_autograd."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

_NPU = torch.ops.npu


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
    # torch_npu's grad regenerates the dropout mask from (seed, offset): a
    # mask the caller passed cannot be reproduced there.
    ctx.given_mask = args["dropout_mask"] is not None and args["keep_prob"] < 1.0
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
    if ctx.given_mask:
        raise NotImplementedError(
            "npu_fusion_attention: backward after a forward with an explicit dropout_mask and keep_prob < 1 is not "
            "supported (npu_fusion_attention_grad regenerates the mask from seed/offset); leave dropout_mask None "
            "to train with dropout")
    dq, dk, dv, dpse, _dsink = _NPU.npu_fusion_attention_grad(
        q, k, v, grad_out, a["head_num"], a["input_layout"], pse=pse, padding_mask=padding_mask,
        atten_mask=atten_mask, softmax_max=softmax_max, softmax_sum=softmax_sum, softmax_in=softmax_in,
        attention_in=out, scale_value=a["scale"], keep_prob=a["keep_prob"], pre_tockens=a["pre_tockens"],
        next_tockens=a["next_tockens"], inner_precise=a["inner_precise"], seed=seed, offset=offset,
        numels=numels, prefix=a["prefix"], actual_seq_qlen=a["actual_seq_qlen"],
        actual_seq_kvlen=a["actual_seq_kvlen"], sparse_mode=a["sparse_mode"],
        gen_mask_parallel=a["gen_mask_parallel"], sync=a["sync"], softmax_layout=a["softmax_layout"],
    )
    return (dq, dk, dv, None, None, dpse if pse is not None else None) + (None,) * (len(_FA_ARGS) - 6)


def register() -> None:
    """Registers the backward of each op once per process (activate runs once)."""
    reg = torch.library.register_autograd
    reg("npu::npu_rms_norm", _rms_norm_backward, setup_context=_rms_norm_setup)
    reg("npu::npu_rotary_mul", _rotary_mul_backward, setup_context=_rotary_mul_setup)
    reg("npu::npu_swiglu", _swiglu_backward, setup_context=_swiglu_setup)
    reg("npu::npu_scaled_masked_softmax", _scaled_masked_softmax_backward,
        setup_context=_scaled_masked_softmax_setup)
    reg("npu::npu_fusion_attention", _fusion_attention_backward, setup_context=_fusion_attention_setup)
