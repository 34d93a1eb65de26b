"""torch_npu.npu.utils: CANN version queries, StreamContext, debug and
runtime switches that need no hardware."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import torch

from npu_emu.npu import device as _device_module
from npu_emu.npu.amp import is_bf16_supported
from npu_emu.npu.device import current_device, device, device_of, set_device, synchronize
from npu_emu.npu.not_supported import refusing
from npu_emu.npu.streams import StreamContext, current_stream, default_stream, set_stream, stream
from npu_emu.npu.error_codes import ErrCode, pta_error

__all__ = [
    "StreamContext", "check_uce_in_memory", "clear_npu_overflow_flag", "current_blas_handle", "current_device",
    "current_stream", "default_stream", "device", "device_of", "finalize_dump", "get_cann_version",
    "get_npu_overflow_flag", "get_sync_debug_mode", "get_task_queue_enable", "init_dump", "ipc_collect",
    "is_bf16_supported", "is_force_overflow_check", "is_support_inf_nan", "npu_check_overflow",
    "obfuscation_calculate", "obfuscation_finalize", "obfuscation_initialize", "set_device", "set_dump",
    "set_op_timeout_ms", "set_stream", "set_sync_debug_mode", "set_task_queue_enable", "stream",
    "stress_detect", "synchronize",
]

CANN_MODULES = ("CANN", "RUNTIME", "COMPILER", "HCCL", "TOOLKIT", "OPP", "OPP_KERNEL", "DRIVER")
_SYNC_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}
_settings: dict[str, Any] = {"sync_debug_mode": 0, "task_queue_enable": 1, "op_timeout_ms": None}


def _check_module(module: str) -> None:
    if module not in CANN_MODULES:
        raise ValueError(f"module={module!r} is not a CANN module; allowed values are: " + ", ".join(CANN_MODULES))


def get_cann_version(module: str = "CANN") -> str:
    """The CANN version npu-emu emulates (its CANN stand-in's version), the
    same for every module; "" when the stand-in is not built."""
    _check_module(module)
    home_file = Path(__file__).resolve().parent.parent / "lib" / "cann_home"
    try:
        info = Path(home_file.read_text().strip()) / "ascend_toolkit_install.info"
        text = info.read_text()
    except OSError:
        return ""
    match = re.search(r"^version=(\S+)", text, re.MULTILINE)
    return match.group(1) if match else ""


def _version_key(version: str, argument: str) -> tuple[int, ...]:
    """Orders CANN versions: 8.0.RC1 < 8.0.RC2 < 8.0.0 < 8.0.1 < 8.1.RC1."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(?:RC(\d+)|(\d+))(?:\.[A-Za-z0-9]+)*", version.strip())
    if match is None:
        raise ValueError(f"{argument}={version!r} is not a CANN version; expected e.g. '8.0.RC3' or '8.1.0'")
    major, minor, rc, patch = match.groups()
    return (int(major), int(minor), 0, int(rc)) if rc is not None else (int(major), int(minor), 1, int(patch))


def _is_gte_cann_version(version: str, module: str = "CANN") -> bool:
    """Whether the emulated CANN version is at least `version`."""
    current = get_cann_version(module)
    target = _version_key(version, "version")
    return bool(current) and _version_key(current, "current CANN version") >= target


def set_sync_debug_mode(debug_mode: int | str) -> None:
    """Accepted and recorded; npu-emu does not warn on synchronizing ops."""
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error` "
                               f"(got {debug_mode!r})" + pta_error(ErrCode.PARAM))
        debug_mode = _SYNC_DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of 0,1,2 (got {debug_mode!r})"
                           + pta_error(ErrCode.PARAM))
    _settings["sync_debug_mode"] = debug_mode


def get_sync_debug_mode() -> int:
    return _settings["sync_debug_mode"]


def set_task_queue_enable(mode: int) -> None:
    """Recorded only: npu-emu always queues tasks on its streams."""
    if mode not in (0, 1, 2):
        raise ValueError(f"set_task_queue_enable: mode={mode!r}; allowed values are 0, 1, 2")
    _settings["task_queue_enable"] = mode


def get_task_queue_enable() -> int:
    return _settings["task_queue_enable"]


def set_op_timeout_ms(timeout: int) -> None:
    """Recorded only: emulated ops have no device timeout. The value must fit
    an unsigned 32-bit int (torch_npu's binding's messages for bad values)."""
    if not isinstance(timeout, int) or isinstance(timeout, bool):
        raise TypeError(f"set_op_timeout_ms: timeout must be an int (milliseconds), got {type(timeout).__name__}")
    if timeout < 0:
        raise OverflowError(f"can't convert negative value to unsigned int (set_op_timeout_ms timeout={timeout})")
    if timeout >= 1 << 32:
        raise OverflowError(f"Overflow when unpacking long (set_op_timeout_ms timeout={timeout} >= 2**32)")
    _settings["op_timeout_ms"] = timeout


def current_blas_handle() -> None:
    """None, as torch_npu: there is no BLAS library handle on npu."""
    return None


def is_support_inf_nan() -> bool:
    """npu-emu computes IEEE inf/nan as the CPU does (INF_NAN mode)."""
    return True


def is_force_overflow_check() -> bool:
    return False


def get_npu_overflow_flag() -> bool:
    """The saturation-mode overflow flag: in INF_NAN mode it is never set."""
    return False


def clear_npu_overflow_flag() -> None:
    """Nothing to clear in INF_NAN mode."""


def npu_check_overflow(grad: torch.Tensor | float) -> bool:
    """Whether `grad` holds an inf or nan."""
    if isinstance(grad, torch.Tensor):
        return not bool(torch.isfinite(grad).all())
    return grad in (float("inf"), float("-inf")) or grad != grad


def ipc_collect() -> None:
    """Nothing to collect: npu-emu shares no device memory between processes."""


def check_uce_in_memory(device_id: int) -> int:
    """0: no uncorrectable memory error (emulated memory has none)."""
    _device_module._check(device_id)
    return 0


stress_detect = refusing("torch.npu.stress_detect()", "it tests real AI cores")
init_dump = refusing("torch.npu.init_dump()", "dump tensors with npu_emu.debug instead")
set_dump = refusing("torch.npu.set_dump()", "dump tensors with npu_emu.debug instead")
finalize_dump = refusing("torch.npu.finalize_dump()", "dump tensors with npu_emu.debug instead")
obfuscation_initialize = refusing("torch.npu.obfuscation_initialize()", "model obfuscation needs the CANN runtime")
obfuscation_finalize = refusing("torch.npu.obfuscation_finalize()", "model obfuscation needs the CANN runtime")
obfuscation_calculate = refusing("torch.npu.obfuscation_calculate()", "model obfuscation needs the CANN runtime")




from npu_emu.npu.soc_version import get_soc_version  # noqa: E402  (torch_npu.npu.utils.get_soc_version)
