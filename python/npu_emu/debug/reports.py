"""Op counters (which ops ran natively or on the CPU fallback) and the raw
storage views of an npu tensor: the debug API this package started with."""

from __future__ import annotations

import torch

from npu_emu import _C


def fallback_report() -> dict[str, int]:
    """Op name -> how many times it ran through the CPU fallback."""
    return dict(_C._fallback_counts())


def native_report() -> dict[str, int]:
    """aclnn op name -> how many times it was launched natively."""
    return dict(_C._native_counts())


def reset_reports() -> None:
    _C._reset_op_counters()


def _require_npu(t: torch.Tensor, what: str) -> None:
    if not isinstance(t, torch.Tensor) or t.device.type != "npu":
        raise TypeError(f"{what} expects an npu tensor, got {type(t).__name__} on "
                        f"{getattr(t, 'device', 'no device')}")


def storage_desc(t: torch.Tensor):
    """The storage descriptor of `t` as a plain object (see npu_emu.formats)."""
    _require_npu(t, "storage_desc")
    from npu_emu.formats import describe_storage

    return describe_storage(t)


def storage_data(t: torch.Tensor) -> torch.Tensor:
    """The physical storage of `t` as a CPU tensor of shape storage_sizes,
    padding included."""
    _require_npu(t, "storage_data")
    from npu_emu.formats import read_storage

    return read_storage(t)
