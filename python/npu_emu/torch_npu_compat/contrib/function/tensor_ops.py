"""torch_npu.contrib's tensor helpers, which torch_npu builds for speed on
Ascend, as the plain PyTorch they are equivalent to."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

from npu_emu.npu.error_codes import ErrCode, ops_error


def roll(x: torch.Tensor, shifts: Sequence[int], dims: Sequence[int]) -> torch.Tensor:
    """torch_npu's Swin-style roll of an (N, H, W, C) tensor: shifts H and W
    (torch_npu rolls those two dimensions whatever `dims` says; npu-emu
    refuses other dims rather than ignoring them)."""
    if x.dim() != 4:
        raise ValueError(f"roll: x must be 4-D (N, H, W, C); got {x.dim()}-D" + ops_error(ErrCode.VALUE))
    if len(shifts) != 2 or len(dims) != 2:
        raise ValueError(f"roll: shifts and dims must have 2 entries; got {tuple(shifts)}, {tuple(dims)}"
                         + ops_error(ErrCode.VALUE))
    if tuple(d % 4 for d in dims) != (1, 2):
        raise ValueError(f"roll: dims must be (1, 2) (H and W of N, H, W, C); got {tuple(dims)}"
                         + ops_error(ErrCode.VALUE))
    return torch.roll(x, shifts=tuple(shifts), dims=(1, 2))


def matmul_transpose(tensor1: torch.Tensor, tensor2: torch.Tensor) -> torch.Tensor:
    """tensor1 @ tensor2.transpose(-2, -1)."""
    return torch.matmul(tensor1, tensor2.transpose(-2, -1))


def npu_fast_condition_index_put(x: torch.Tensor, condition: torch.Tensor, value: float) -> torch.Tensor:
    """x with `value` where the boolean `condition` holds (a new tensor)."""
    if condition.dtype != torch.bool:
        raise TypeError(f"npu_fast_condition_index_put: condition must be torch.bool; got {condition.dtype}"
                        + ops_error(ErrCode.TYPE))
    return torch.where(condition, torch.full_like(x, value), x)


def fuse_add_softmax_dropout(training: bool, dropout: Callable[[torch.Tensor], torch.Tensor],
                             attn_mask: torch.Tensor, attn_scores: torch.Tensor, attn_head_size: int,
                             p: float = 0.5, dim: int = -1) -> torch.Tensor:
    """dropout(softmax(attn_mask + attn_scores / sqrt(attn_head_size), dim=-1)).

    torch_npu's fused kernel drops with probability `p` when `training`; its
    other path, taken here for every shape, applies the `dropout` module given."""
    scores = torch.add(attn_mask, attn_scores, alpha=1 / math.sqrt(attn_head_size))
    return dropout(F.softmax(scores, dim=-1))
