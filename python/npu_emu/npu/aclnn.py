"""torch.npu.aclnn: `allow_hf32` (the same switch as torch.npu.conv.allow_hf32),
a `flags(allow_hf32=...)` block and version() (None: not known)."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from types import ModuleType

from npu_emu.npu.options import conv


def version() -> None:
    """The aclnn library version is not reported (None), as torch_npu."""
    warnings.warn("torch.npu.aclnn.version isn't implemented!", stacklevel=2)
    return None


@contextlib.contextmanager
def flags(allow_hf32: bool | None = None) -> Iterator[None]:
    """Sets allow_hf32 for the block (None: unchanged), restoring it after."""
    previous = conv.allow_hf32
    if allow_hf32 is not None:
        conv.allow_hf32 = allow_hf32
    try:
        yield
    finally:
        conv.allow_hf32 = previous


class _Aclnn(ModuleType):
    @property
    def allow_hf32(self) -> bool:
        return conv.allow_hf32

    @allow_hf32.setter
    def allow_hf32(self, value: bool) -> None:
        conv.allow_hf32 = value


sys.modules[__name__].__class__ = _Aclnn
