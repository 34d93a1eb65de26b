"""GradScaler test cases of torch_npu.testing.common_utils: a model and
optimizer pair (control and scaled, same initial weights) with input data."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def _create_scaling_models_optimizers(device: str = "npu", optimizer_ctor: Callable[..., Any] = torch.optim.SGD,
                                      optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """(control model, scaled model, control optimizer, scaled optimizer): two
    Linear(8, 8) layers each, the scaled model a copy of the control one."""
    control = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)).to(device=device)
    scaling = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)).to(device=device)
    with torch.no_grad():
        for c, s in zip(control.parameters(), scaling.parameters()):
            s.copy_(c)
    kwargs = {"lr": 1.0, **(optimizer_kwargs or {})}
    return control, scaling, optimizer_ctor(control.parameters(), **kwargs), optimizer_ctor(scaling.parameters(),
                                                                                              **kwargs)


def _create_scaling_case(device: str = "npu", dtype: torch.dtype = torch.float,
                         optimizer_ctor: Callable[..., Any] = torch.optim.SGD,
                         optimizer_kwargs: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """The models and optimizers above plus 4 (input, target) 8x8 batches, an
    MSE loss and the iteration to skip (2)."""
    data = [(torch.randn((8, 8), dtype=dtype, device=device), torch.randn((8, 8), dtype=dtype, device=device))
            for _ in range(4)]
    return _create_scaling_models_optimizers(device, optimizer_ctor, optimizer_kwargs) + (
        data, torch.nn.MSELoss().to(device), 2)
