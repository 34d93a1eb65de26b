"""Activation of the backend: driver load, renaming PrivateUse1 to `npu`,
registering torch.npu and the generated Tensor/Module methods."""

from __future__ import annotations

import atexit
import os
from pathlib import Path

import torch

import _npu_emu_switch

_EMULATOR_LIBRARY = Path(__file__).resolve().parent / "lib" / "libnpu_emu_acl.so"
_active_mode: str | None = None


def activate(mode: str | None = None) -> str:
    """Loads the driver for `mode` (default: NPU, else emu) and registers the
    backend; idempotent. Returns the active mode."""
    global _active_mode
    mode = mode or _npu_emu_switch.requested_mode() or "emu"
    if _active_mode is not None:
        if mode != _active_mode:
            raise RuntimeError(f"npu-emu is already active with NPU={_active_mode}; cannot switch to NPU={mode}")
        return _active_mode

    if mode == "emu" and _npu_emu_switch.torch_npu_front_end() == "real":
        raise RuntimeError(
            "npu-emu's own backend cannot start: with NPU=emu and the real torch_npu installed, the real torch_npu "
            "owns the npu device on npu-emu's CANN stand-in (only one backend can); use `import torch_npu`, or set "
            "NPU_EMU_TORCH_NPU=compat to use npu-emu's own backend instead")
    _check_settings()
    from npu_emu import _C

    _load_driver(_C, mode)
    # Before finalization: autograd's npu threads must have released every
    # finished graph task (dispatch/python/autograd_drain.cpp).
    atexit.register(_C._drain_autograd_device_threads)
    torch.utils.rename_privateuse1_backend("npu")
    from npu_emu import npu as npu_module

    torch._register_device_module("npu", npu_module)
    torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
    _npu_emu_switch.install_torch_npu_alias()
    from npu_emu import serialization

    serialization.install()
    from npu_emu import unsupported

    unsupported.install()
    from npu_emu import distributed

    distributed.install()
    from npu_emu import fused  # noqa: F401  (torch.ops.npu fused ops: autograd and composites)
    from npu_emu import process_sharing

    process_sharing.install()
    _active_mode = mode
    from npu_emu import sanitizer  # NPU_EMU_SANITIZE=streams: the stream race detector

    sanitizer.enable_from_env()
    return mode


_FALLBACK_MODES = ("allow", "warn", "error")


# torch_npu's on/off switches npu-emu honours: "0" or "1" (torch_npu's
# documented values), unset or empty for the default.
_SWITCHES = ("TORCH_NPU_FALLBACK_CPU_DISABLE", "TORCH_NPU_COMPACT_ERROR_OUTPUT")


def _check_settings() -> None:
    """A bad NPU_EMU_FALLBACK or torch_npu switch is an error of the start,
    not of the first op that falls back or the first error message. Only
    checked here: the dispatch layer reads NPU_EMU_FALLBACK at that first
    fallback, so a process may still set it after the import."""
    value = os.environ.get("NPU_EMU_FALLBACK", "")
    if value and value not in _FALLBACK_MODES:
        raise RuntimeError(f"NPU_EMU_FALLBACK must be one of {', '.join(_FALLBACK_MODES)}; got '{value}'")
    for name in _SWITCHES:
        value = os.environ.get(name, "")
        if value not in ("", "0", "1"):
            raise RuntimeError(f"{name} must be 0 or 1; got '{value}'")


# What the runtime said about a failed call follows this line of the
# torch_npu-style error (dispatch/runtime/acl_check.cpp).
_ACL_ERROR_MARKER = "[ERROR] ERR00100 PTA call acl api failed"


def _load_driver(c_module, mode: str) -> None:
    """Loads the driver and initializes ACL. A failed aclInit says why (a bad
    NPU_EMU_* setting ...) only after its error code: that reason leads."""
    try:
        c_module._load_driver(mode, os.fspath(_EMULATOR_LIBRARY))
    except RuntimeError as err:
        text = str(err)
        if _ACL_ERROR_MARKER not in text:
            raise
        reason = text.split(_ACL_ERROR_MARKER, 1)[1].strip()
        if not reason:
            raise
        raise RuntimeError(reason) from err


def active_mode() -> str | None:
    return _active_mode
