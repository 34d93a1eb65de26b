"""NpuFusedAdam: torch.optim.Adam on npu-emu's fused Adam kernel (_fused_adam_)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase, check_range


def check_adam_arguments(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    check_range("learning rate", lr, 0.0)
    check_range("epsilon", eps, 0.0)
    check_range("beta parameter at index 0", betas[0], 0.0, 1.0, high_open=True)
    check_range("beta parameter at index 1", betas[1], 0.0, 1.0, high_open=True)
    check_range("weight_decay", weight_decay, 0.0)


class NpuFusedAdam(NpuFusedOptimizerBase, torch.optim.Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False) -> None:
        check_adam_arguments(lr, betas, eps, weight_decay)
        torch.optim.Adam.__init__(self, params, **self._with_kernel(
            dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad), "fused"))
