"""torch.npu.amp and torch.npu's autocast functions, with torch_npu's names.

Autocast itself is PyTorch's (torch.autocast("npu")); the per-op precision
rules are the AutocastPrivateUse1 kernels of the extension
(dispatch/autocast/autocast_rules.h: CUDA's op lists). This module adds the
torch_npu spellings: `torch.npu.amp.autocast(...)` (device "npu"),
`torch.npu.amp.GradScaler(...)` (torch.amp.GradScaler on "npu", plus
torch_npu's `dynamic` switch), `custom_fwd`/`custom_bwd`, and
`get/set_autocast_dtype`, `is/set_autocast_enabled`, `is_bf16_supported`.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any, Callable

import torch
from torch.amp.grad_scaler import _refresh_per_optimizer_state

__all__ = [
    "GradScaler", "amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "get_amp_supported_dtype", "get_autocast_dtype",
    "is_autocast_enabled", "is_bf16_supported", "set_autocast_dtype", "set_autocast_enabled",
]

DEVICE = "npu"

# SoCs without bfloat16 arithmetic (Ascend 910A and 310P have none; 910B on).
_NO_BF16_SOCS = ("Ascend910A", "Ascend310P")


def get_amp_supported_dtype() -> list[torch.dtype]:
    """The dtypes torch.autocast("npu") accepts (what PyTorch asks the device
    module), as torch_npu lists them: bfloat16 only where the SoC has it, and
    float32 (autocast's lower-precision ops then run in float32)."""
    if is_bf16_supported():
        return [torch.float16, torch.bfloat16, torch.float32]
    return [torch.float16, torch.float32]


def is_bf16_supported() -> bool:
    """Whether the current device computes in bfloat16 (910B/910_93: yes; 910A, 310P: no)."""
    from npu_emu.npu.device import current_device, get_device_name

    return not get_device_name(current_device()).startswith(_NO_BF16_SOCS)


def amp_definitely_not_available() -> bool:
    """torch_npu's check (as torch.cuda.amp's): True when no npu device is usable."""
    from npu_emu.npu.device import is_available

    return not is_available()


def get_autocast_dtype() -> torch.dtype:
    """The dtype an npu autocast region without `dtype=` computes in (float16 unless set)."""
    return torch.get_autocast_dtype(DEVICE)


def set_autocast_dtype(dtype: torch.dtype) -> None:
    if dtype not in get_amp_supported_dtype():
        raise ValueError(f"set_autocast_dtype: dtype must be one of {get_amp_supported_dtype()}, got {dtype}")
    torch.set_autocast_dtype(DEVICE, dtype)


def is_autocast_enabled() -> bool:
    """Whether npu autocast is on in this thread (inside an enabled region, or set_autocast_enabled(True))."""
    return torch.is_autocast_enabled(DEVICE)


def set_autocast_enabled(enabled: bool) -> None:
    torch.set_autocast_enabled(DEVICE, enabled)


class autocast(torch.amp.autocast_mode.autocast):
    """`torch.npu.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)`:
    torch.autocast on device "npu", usable as a context manager or decorator."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True) -> None:
        super().__init__(DEVICE, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(torch.amp.GradScaler):
    """`torch.npu.amp.GradScaler`: torch.amp.GradScaler("npu"). With
    `dynamic=False` (torch_npu's static loss scaling) the scale stays at
    `init_scale`; steps whose gradients are not finite are still skipped."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
        dynamic: bool = True,
    ) -> None:
        super().__init__(DEVICE, init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
        self._dynamic = dynamic

    def update(self, new_scale: float | torch.Tensor | None = None) -> None:
        if self._dynamic or new_scale is not None or not self._enabled:
            super().update(new_scale)
            return
        # Static scaling: keep the scale, only start a new iteration.
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)


def custom_fwd(fwd: Callable[..., Any] | None = None, *, cast_inputs: torch.dtype | None = None) -> Any:
    """torch.amp.custom_fwd for a custom autograd Function's forward on npu."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return torch.amp.custom_fwd(fwd, device_type=DEVICE, cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable[..., Any]) -> Any:
    """torch.amp.custom_bwd for the matching backward on npu."""
    return torch.amp.custom_bwd(bwd, device_type=DEVICE)
