"""torch.npu.set_option, matmul/conv HF32 switches and CubeMathType.

The emulator always computes float32 matmuls and convolutions in float32: the
switches are recorded and read back as torch_npu's, but HF32 / reduced
precision requests do not lower the emulator's precision."""

from __future__ import annotations

import enum
from typing import Any

from npu_emu.npu.error_codes import ErrCode, pta_error
from npu_emu.npu.not_supported import refusing

__all__ = ["CubeMathType", "conv", "get_mm_bmm_format_nd", "matmul", "set_aoe", "set_mm_bmm_format_nd",
           "set_option"]


class CubeMathType(enum.IntEnum):
    KEEP_DTYPE = 0
    ALLOW_FP32_DOWN_PRECISION = 1
    USE_FP16 = 2
    USE_HF32 = 3
    USE_FP32_ADD = 4


_options: dict[str, str] = {}
_mm_bmm_nd = True


# The ACL options whose values torch_npu checks, and the values it allows.
_ALLOWED_OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "ACL_PRECISION_MODE": ("allow_fp32_to_fp16", "must_keep_origin_dtype"),
    "ACL_OP_SELECT_IMPL_MODE": ("high_performance", "high_precision"),
    "ACL_OP_DEBUG_LEVEL": ("0", "1", "2", "3", "4"),
    "ACL_OP_COMPILER_CACHE_MODE": ("disable", "enable", "force"),
}
_AICORE_NUM_RANGE = (1, 32)


def _check_option_value(name: str, value: str) -> None:
    """Raises torch_npu's ValueError for a value outside an option's allowed set."""
    allowed = _ALLOWED_OPTION_VALUES.get(name)
    if allowed is not None and value not in allowed:
        raise ValueError(f"value of {name} should be in {list(allowed)} but got {value}" + pta_error(ErrCode.PARAM))
    low, high = _AICORE_NUM_RANGE
    if name == "ACL_AICORE_NUM" and not (value.isdigit() and low <= int(value) <= high):
        raise ValueError(f"value of ACL_AICORE_NUM should be an integer in [{low}, {high}] but got {value}"
                         + pta_error(ErrCode.PARAM))


def set_option(option: dict[str, Any]) -> None:
    """Records ACL/torch_npu options (compile caches, precision modes ...); the
    emulator's kernels do not read them. MM_BMM_ND_ENABLE sets
    get_mm_bmm_format_nd(), ALLOW_INTERNAL_FORMAT torch.npu.config's switch."""
    if not isinstance(option, dict):
        raise TypeError(f"npu option must be a dict, got {type(option).__name__}" + pta_error(ErrCode.PARAM))
    for key, value in option.items():
        _check_option_value(str(key), str(value))
    for key, value in option.items():
        _options[str(key)] = str(value)
    if option.get("MM_BMM_ND_ENABLE") in ("enable", "disable"):
        set_mm_bmm_format_nd(option["MM_BMM_ND_ENABLE"] == "enable")
    if option.get("ALLOW_INTERNAL_FORMAT") in ("enable", "disable"):
        import torch

        torch.npu.config.allow_internal_format = option["ALLOW_INTERNAL_FORMAT"] == "enable"


def get_option(name: str) -> str | None:
    return _options.get(name)


def set_mm_bmm_format_nd(is_nd: bool = True) -> None:
    global _mm_bmm_nd
    _mm_bmm_nd = bool(is_nd)


def get_mm_bmm_format_nd() -> bool:
    return _mm_bmm_nd


set_aoe = refusing("torch.npu.set_aoe() (Ascend Optimization Engine tuning)", "there is no op compiler to tune")


class _Hf32Switch:
    """torch.npu.matmul / torch.npu.conv: `allow_hf32` (and for matmul
    `cube_math_type`) as attributes with torch_npu's type checks."""

    def __init__(self, what: str, allow_hf32: bool, has_cube_math_type: bool) -> None:
        object.__setattr__(self, "_what", what)
        object.__setattr__(self, "_allow_hf32", allow_hf32)
        object.__setattr__(self, "_has_cube", has_cube_math_type)
        object.__setattr__(self, "_cube_math_type", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_hf32":
            if not isinstance(value, bool):
                raise TypeError(f"allow_hf32 must be a bool, but got {type(value).__name__}" + pta_error(ErrCode.TYPE))
            object.__setattr__(self, "_allow_hf32", value)
        elif name == "cube_math_type" and self._has_cube:
            if not isinstance(value, CubeMathType):
                raise TypeError("value should be one of Enum CubeMathType when setting cube_math_type, but got "
                                f"{type(value)}")
            object.__setattr__(self, "_cube_math_type", value)
        else:
            raise AttributeError(f"torch.npu.{self._what} has no setting {name!r}")

    def __getattr__(self, name: str) -> Any:
        if name == "allow_hf32":
            return self._allow_hf32
        if name == "cube_math_type" and self._has_cube:
            return self._cube_math_type
        raise AttributeError(f"torch.npu.{self._what} has no setting {name!r}")


matmul = _Hf32Switch("matmul", allow_hf32=False, has_cube_math_type=True)
conv = _Hf32Switch("conv", allow_hf32=True, has_cube_math_type=False)
