"""torch_npu._C: the private bindings torch_npu's tests and libraries reach
for, on npu-emu's backend."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from npu_emu.npu import utils as _npu_utils
from npu_emu.npu.host_memory import host_empty_cache as _npu_hostEmptyCache  # noqa: F401
from npu_emu.npu.soc_version import get_soc_version as _npu_get_soc_version  # noqa: F401
from npu_emu.npu.mstx import native as _mstx  # noqa: F401  (the markers' backend, replaceable)
from npu_emu.npu.npurt import runtime as _npurt  # noqa: F401


def _npu_getDeviceCount() -> int:
    return torch.npu.device_count()


def _npu_getCurrentRawStream(device_index: int) -> int:
    """The ACL handle of the current stream of device `device_index`."""
    return torch.npu.current_stream(device_index).npu_stream


def _npu_getCurrentRawStreamNoWait(device_index: int) -> int:
    return _npu_getCurrentRawStream(device_index)


def _weak_ref_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """A tensor over the same memory, shape, strides and offset, outside
    autograd. Unlike torch_npu's it keeps the storage alive (a strong
    reference), which is safe where torch_npu's would dangle."""
    return tensor.detach()


def _empty_strided_npu(size: Sequence[int], stride: Sequence[int], dtype: torch.dtype | None = None) -> torch.Tensor:
    """torch.empty_strided on the current npu device."""
    return torch.empty_strided(tuple(size), tuple(stride), dtype=dtype,
                               device=torch.device("npu", torch.npu.current_device()))


def _get_cann_version(module: str = "CANN") -> str:
    return _npu_utils.get_cann_version(module)


def _is_gte_cann_version(version: str, module: str = "CANN") -> bool:
    return _npu_utils._is_gte_cann_version(version, module)


def _npu_set_sync_debug_mode(mode: int) -> None:
    _npu_utils.set_sync_debug_mode(mode)


def _npu_get_sync_debug_mode() -> int:
    return _npu_utils.get_sync_debug_mode()
