"""Devices: torch.npu.device_count, set_device, get_device_properties ..."""

from __future__ import annotations

import os
import uuid as _uuid
import warnings
from dataclasses import dataclass
from typing import Any

import torch

from npu_emu import _C
from npu_emu.npu.error_codes import ErrCode, pta_error
from npu_emu.npu.fork import _check_not_forked, _is_in_bad_fork

DeviceLike = torch.device | str | int | None


def _index(device: DeviceLike, optional: bool = True) -> int:
    """The device index `device` names; None means the current device."""
    if device is None:
        return current_device()
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "npu":
            raise ValueError(f"Expected a npu device, but got: {device}" + pta_error(ErrCode.VALUE))
        return current_device() if device.index is None else device.index
    if isinstance(device, int):
        return device
    raise TypeError(f"device must be a torch.device, str, int or None, got {type(device).__name__}")


def _get_device_index(device: DeviceLike, optional: bool = False) -> int:
    """torch_npu.npu._get_device_index: the index `device` names (a device,
    "npu[:i]" or an int); None is the current device when `optional`."""
    if device is None and not optional:
        raise ValueError("Expected a npu device with a specified index or an integer, but got: None"
                         + pta_error(ErrCode.VALUE))
    return _index(device)


def _check(index: int) -> int:
    count = device_count()
    if not 0 <= index < count:
        raise RuntimeError(f"Invalid NPU device index {index}: {count} npu device(s) are visible, "
                           f"valid indices are 0..{count - 1}" + pta_error(ErrCode.VALUE))
    return index


def is_available() -> bool:
    return device_count() > 0


def device_count() -> int:
    return _C._device_count()


def is_initialized() -> bool:
    return not _is_in_bad_fork()


def init() -> None:
    """Initialization happens at import; kept for torch_npu compatibility.
    Raises in a process forked after its parent used npu."""
    _check_not_forked()


def _lazy_init() -> None:
    _check_not_forked()


def current_device() -> int:
    return _C._current_device()


def set_device(device: DeviceLike) -> None:
    index = _index(device)
    if index >= 0:
        _C._set_device(_check(index))


def synchronize(device: DeviceLike = None) -> None:
    """Waits for all work queued on `device`; raises its pending errors."""
    _C._synchronize(_check(_index(device)))


def get_device_name(device: DeviceLike = None) -> str:
    _check(_index(device))
    return _C._soc_name()


# The namespace of the emulated devices' UUIDs (a fixed, arbitrary UUID).
_EMULATED_DEVICE_NAMESPACE = _uuid.UUID("6e70752d-656d-7500-8000-000000000000")


@dataclass(frozen=True)
class NPUDeviceProperties:
    name: str
    total_memory: int
    cube_core_num: int
    vector_core_num: int
    L2_cache_size: int
    # CUDA's fields that have no Ascend meaning: None, as torch_npu.
    major: None = None
    minor: None = None
    is_multi_gpu_board: None = None
    is_integrated: None = None
    max_threads_per_multi_processor: None = None
    warp_size: None = None
    regs_per_multiprocessor: None = None
    gcnArchName: None = None  # noqa: N815  (torch's field name)
    # The device's UUID (torch_npu reads it from the driver): npu-emu derives a
    # stable one from the SoC name and the device index.
    uuid: _uuid.UUID | None = None

    @property
    def multi_processor_count(self) -> int:
        return self.cube_core_num

    def __repr__(self) -> str:
        return (f"_NPUDeviceProperties(name='{self.name}', total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"cube_core_num={self.cube_core_num}, vector_core_num={self.vector_core_num}, "
                f"L2_cache_size={self.L2_cache_size // (1024 * 1024)}MB)")


def get_device_properties(device: DeviceLike = None) -> NPUDeviceProperties:
    index = _check(_index(device))
    props: dict[str, Any] = _C._device_properties(index)
    props.pop("allow_internal_format_default", None)
    return NPUDeviceProperties(**props, uuid=_uuid.uuid5(_EMULATED_DEVICE_NAMESPACE, f"{props['name']}/{index}"))


def get_device_capability(device: Any = None) -> tuple[int, int] | None:
    """Ascend devices have no CUDA-style compute capability: None, for any
    device argument (torch_npu), unless TORCH_NPU_DEVICE_CAPABILITY="X.Y"
    declares one for libraries that ask."""
    declared = os.environ.get("TORCH_NPU_DEVICE_CAPABILITY", "")
    major, dot, minor = declared.partition(".")
    if dot and major.isdigit() and minor.isdigit():
        return int(major), int(minor)
    if declared:  # torch_npu's rule for a bad value: None, with a warning naming the setting
        warnings.warn(f"TORCH_NPU_DEVICE_CAPABILITY='{declared}' is not 'major.minor' with non-negative integers "
                      "(e.g. '8.0'); get_device_capability() returns None")
    return None


def mem_get_info(device: DeviceLike = None) -> tuple[int, int]:
    """(free, total) device memory in bytes."""
    free, total = _C._mem_get_info(_check(_index(device)))
    return int(free), int(total)


def can_device_access_peer(device: DeviceLike, peer: DeviceLike) -> bool:
    """True for two different visible devices (they share the host's memory);
    torch_npu's AssertionErrors for invalid indices."""
    count = device_count()
    a, b = _index(device), _index(peer)
    if not 0 <= a < count:
        raise AssertionError(f"Invalid device id {a}; valid ids are 0..{count - 1}" + pta_error(ErrCode.VALUE))
    if not 0 <= b < count:
        raise AssertionError(f"Invalid peer device id {b}; valid ids are 0..{count - 1}" + pta_error(ErrCode.VALUE))
    return a != b


class device:
    """Context manager that makes `device` current, restoring the previous one."""

    def __init__(self, device: DeviceLike) -> None:
        self.idx = _index(device) if device is not None else -1
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.idx != self.prev_idx:
                set_device(self.idx)

    def __exit__(self, *exc: object) -> bool:
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the device of tensor `obj` current."""

    def __init__(self, obj: torch.Tensor) -> None:
        super().__init__(obj.get_device() if obj.device.type == "npu" else None)
