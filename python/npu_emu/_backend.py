"""Activation of the backend: driver load, renaming PrivateUse1 to `npu`,
registering torch.npu and the generated Tensor/Module methods."""

from __future__ import annotations

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

    from npu_emu import _C

    _C._load_driver(mode, os.fspath(_EMULATOR_LIBRARY))
    torch.utils.rename_privateuse1_backend("npu")
    from npu_emu import npu as npu_module

    torch._register_device_module("npu", npu_module)
    torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
    _npu_emu_switch.install_torch_npu_alias()
    from npu_emu import serialization

    serialization.install()
    _active_mode = mode
    return mode


def active_mode() -> str | None:
    return _active_mode
