"""NpuFusedSGD: torch.optim.SGD on npu-emu's fused SGD kernel (_fused_sgd_)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase, check_range


class NpuFusedSGD(NpuFusedOptimizerBase, torch.optim.SGD):
    def __init__(self, params: Iterable[Any], lr: float | None = None, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if lr is None:
            raise TypeError("NpuFusedSGD: lr is required (the learning rate, e.g. lr=0.1)")
        check_range("learning rate", lr, 0.0)
        check_range("momentum", momentum, 0.0)
        check_range("weight_decay", weight_decay, 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        torch.optim.SGD.__init__(self, params, **self._with_kernel(
            dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov), "fused"))
