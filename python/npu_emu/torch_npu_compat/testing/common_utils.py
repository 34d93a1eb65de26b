"""torch_npu.testing.common_utils: input makers and skip decorators of
torch_npu's unit tests."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import unittest
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import torch

__all__ = [
    "PERF_TEST_ENABLE", "SkipIfNoLapack", "SkipIfNotGteCANNVersion", "SupportedDevices", "check_operators_in_prof",
    "create_common_tensor", "create_dtype_tensor", "freeze_rng_state", "get_npu_device", "is_iterable",
    "iter_indices", "set_npu_device", "test_2args_broadcast",
]

PERF_TEST_ENABLE = os.getenv("PERF_TEST_ENABLE", "").upper() in ("ON", "1", "YES", "TRUE", "Y")


@contextlib.contextmanager
def freeze_rng_state() -> Iterator[None]:
    """Restores torch's CPU generator state on exit."""
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)


def iter_indices(tensor: torch.Tensor) -> Iterable[Any]:
    if tensor.dim() == 0:
        return range(0)
    if tensor.dim() == 1:
        return range(tensor.size(0))
    return itertools.product(*(range(s) for s in tensor.size()))


def is_iterable(obj: Any) -> bool:
    try:
        iter(obj)
    except TypeError:
        return False
    return True


def get_npu_device() -> str:
    """npu:N for SET_NPU_DEVICE=N, else npu:0."""
    index = os.environ.get("SET_NPU_DEVICE")
    return "npu:0" if index is None else f"npu:{index}"


def set_npu_device() -> str:
    device = get_npu_device()
    torch.npu.set_device(device)
    return device


def _to_npu(array: np.ndarray, npu_format: int, device: str | None) -> tuple[torch.Tensor, torch.Tensor]:
    from npu_emu.formats import npu_format_cast

    cpu_input = torch.from_numpy(array)
    npu_input = torch.from_numpy(array).to(device or get_npu_device())
    if npu_format != -1:
        npu_input = npu_format_cast(npu_input, npu_format)
    return cpu_input, npu_input


def create_common_tensor(item: Sequence[Any], minValue: float, maxValue: float,
                         device: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """`item` = [numpy dtype, acl format (-1: keep ND), shape]: the same uniform
    random values in [minValue, maxValue) as a CPU tensor and an npu tensor."""
    dtype, npu_format, shape = item[0], item[1], item[2]
    array = np.random.uniform(minValue, maxValue, shape).astype(dtype)
    return _to_npu(array, npu_format, device)


def create_dtype_tensor(shape: Sequence[int], dtype: torch.dtype, npu_format: int = -1, min_value: float = -5,
                        max_value: float = 5, no_zero: bool = False,
                        device: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """bool, half and float get random values of their type; every other dtype
    int32 integers in [min_value, max_value]. Formats apply to float types."""
    if dtype == torch.bool:
        array = np.random.randint(0, 2, size=shape).astype(bool)
    elif dtype in (torch.half, torch.float):
        array = np.random.uniform(min_value, max_value, shape).astype(np.float16 if dtype == torch.half
                                                                     else np.float32)
    else:
        array = np.random.randint(min_value, max_value + 1, size=shape).astype(np.int32)
    if no_zero:
        array = np.where(array != 0, array, np.ones_like(array))
    return _to_npu(array, npu_format if dtype in (torch.float, torch.half) else -1, device)


def _broadcast_cases(device: str | None = None) -> Iterator[tuple[torch.Tensor, ...]]:
    for x_shape, y_shape in (((2, 3, 4, 5), (1, 1, 1)), ((2, 3, 4, 5), (4, 5))):
        x = np.random.rand(*x_shape).astype(np.float32)
        y = np.random.rand(*y_shape).astype(np.float32)
        cpu_x, npu_x = _to_npu(x, -1, device)
        cpu_y, npu_y = _to_npu(y, -1, device)
        yield cpu_x, cpu_y, npu_x, npu_y


def test_2args_broadcast(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> list[list[np.ndarray]]:
    """[[cpu result, npu result], ...] of `fn` on broadcasting input pairs."""
    return [[fn(cx, cy).numpy(), fn(nx, ny).to("cpu").numpy()] for cx, cy, nx, ny in _broadcast_cases()]


test_2args_broadcast.__test__ = False  # type: ignore[attr-defined]  (not a pytest test)


def check_operators_in_prof(expected_operators: list[str], prof: Any,
                            unexpected_operators: list[str] | None = None) -> bool:
    """Whether the profile ran every expected operator and none of the
    unexpected ones (names with or without the "cached_" prefix)."""
    unexpected = set(unexpected_operators or [])
    remaining = list(expected_operators)
    for item in prof.key_averages():
        key = item.key.replace("cached_", "")
        if key in unexpected:
            return False
        if key in remaining:
            remaining.remove(key)
    return not remaining


def _device_family(name: str) -> str:
    """The prefix of the SoC name that SupportedDevices lists name: "Ascend910B"
    for Ascend910B1, "Ascend910_93" for Ascend910_9391, "Ascend950" for Ascend950PR."""
    if name.startswith("Ascend910_"):
        return name[:12]
    if name.startswith("Ascend950"):
        return name[:9]
    return name[:10]


class SupportedDevices:
    """Skips the test unless device 0's SoC family is listed."""

    def __init__(self, supported_devices: list[str]) -> None:
        self.supported_devices = supported_devices

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run_if_supported(slf: Any, *args: Any, **kwargs: Any) -> Any:
            family = _device_family(torch.npu.get_device_name(0))
            if family not in self.supported_devices:
                raise unittest.SkipTest(f"Only run on {self.supported_devices!r}, current device is {family}.")
            return fn(slf, *args, **kwargs)

        return run_if_supported


class SkipIfNoLapack:
    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run_if_lapack(*args: Any, **kwargs: Any) -> Any:
            if not torch._C.has_lapack:
                raise unittest.SkipTest("PyTorch compiled without Lapack")
            return fn(*args, **kwargs)

        return run_if_lapack


class SkipIfNotGteCANNVersion:
    """Skips the test unless the CANN version is at least `base_version`."""

    def __init__(self, base_version: str, module: str = "CANN") -> None:
        self.base_version = base_version
        self.module = module

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run_if_new_enough(slf: Any, *args: Any, **kwargs: Any) -> Any:
            from npu_emu.npu import utils

            if not utils._is_gte_cann_version(self.base_version, module=self.module):
                raise unittest.SkipTest(f"Only run on {self.base_version} or greater, current cann version is "
                                        f"{utils.get_cann_version(module=self.module)}.")
            return fn(slf, *args, **kwargs)

        return run_if_new_enough


from npu_emu.torch_npu_compat.testing.scaling_cases import (  # noqa: E402,F401
    _create_scaling_case,
    _create_scaling_models_optimizers,
)
