"""One error for torch_npu features that need Ascend hardware or its
compilers, which the emulator does not have."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from npu_emu.npu.error_codes import ErrCode, pta_error


class NpuEmuNotSupportedError(RuntimeError):
    """A torch_npu feature npu-emu does not provide (subclass of RuntimeError,
    which torch_npu raises for unsupported features)."""


def refuse(feature: str, instead: str) -> NoReturn:
    raise NpuEmuNotSupportedError(f"{feature} is not supported by npu-emu (no Ascend hardware); {instead}"
                                  + pta_error(ErrCode.NOT_SUPPORT))


def refusing(feature: str, instead: str) -> Callable[..., NoReturn]:
    """A function that raises the not-supported error for `feature` when called."""

    def refuse_call(*args: Any, **kwargs: Any) -> NoReturn:
        refuse(feature, instead)

    refuse_call.__name__ = feature.split("(")[0].rsplit(".", 1)[-1]
    refuse_call.__doc__ = f"Not supported by npu-emu: {feature}; {instead}."
    return refuse_call
