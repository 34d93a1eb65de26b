"""NpuFusedAdadelta: torch.optim.Adadelta on npu-emu's foreach kernels."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase, check_range


class NpuFusedAdadelta(NpuFusedOptimizerBase, torch.optim.Adadelta):
    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0) -> None:
        check_range("learning rate", lr, 0.0)
        check_range("rho", rho, 0.0, 1.0)
        check_range("epsilon", eps, 0.0)
        check_range("weight_decay", weight_decay, 0.0)
        torch.optim.Adadelta.__init__(self, params, **self._with_kernel(
            dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay), "foreach"))
