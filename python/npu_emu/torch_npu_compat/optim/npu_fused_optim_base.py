"""torch_npu.optim's common base: what its fused optimizers add to
torch.optim.Optimizer (a fused gradient clip over all parameters)."""

from __future__ import annotations

from typing import Any

import torch


def check_range(name: str, value: float, low: float, high: float | None = None, *, high_open: bool = False) -> None:
    """Raises ValueError naming `name` unless low <= value (< or <=) high."""
    if high is None:
        above = False
    else:
        above = value >= high if high_open else value > high
    if value < low or above:
        bound = "" if high is None else (f" and < {high}" if high_open else f" and <= {high}")
        raise ValueError(f"Invalid {name} value: {value}; it must be >= {low}{bound}")


class NpuFusedOptimizerBase(torch.optim.Optimizer):
    """Mixed into each NpuFused* class ahead of its torch.optim algorithm."""

    def clip_grad_norm_fused_(self, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
        """Clips the gradients of every parameter of this optimizer to a total
        `norm_type` norm of at most `max_norm` (torch.nn.utils.clip_grad_norm_
        over all groups, one foreach pass); returns the total norm before clipping."""
        grads = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
        return torch.nn.utils.clip_grad_norm_(grads, max_norm, norm_type=norm_type, foreach=True)

    @staticmethod
    def _with_kernel(kwargs: dict[str, Any], kernel: str) -> dict[str, Any]:
        """torch.optim keyword arguments selecting npu-emu's multi-tensor path:
        fused=True (one launch per step, optim.yaml) or foreach=True."""
        return {**kwargs, kernel: True}
