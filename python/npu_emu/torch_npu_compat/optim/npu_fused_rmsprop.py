"""NpuFusedRMSprop: torch.optim.RMSprop on npu-emu's foreach kernels."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase, check_range


class NpuFusedRMSprop(NpuFusedOptimizerBase, torch.optim.RMSprop):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False) -> None:
        check_range("learning rate", lr, 0.0)
        check_range("epsilon", eps, 0.0)
        check_range("momentum", momentum, 0.0)
        check_range("weight_decay", weight_decay, 0.0)
        check_range("alpha", alpha, 0.0)
        torch.optim.RMSprop.__init__(self, params, **self._with_kernel(
            dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum, centered=centered),
            "foreach"))
