"""NpuFusedAdamW: torch.optim.AdamW on npu-emu's fused AdamW kernel (_fused_adamw_)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from npu_emu.torch_npu_compat.optim.npu_fused_adam import check_adam_arguments
from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase


class NpuFusedAdamW(NpuFusedOptimizerBase, torch.optim.AdamW):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False) -> None:
        check_adam_arguments(lr, betas, eps, weight_decay)
        torch.optim.AdamW.__init__(self, params, **self._with_kernel(
            dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad), "fused"))
