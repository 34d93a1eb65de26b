"""torch.npu.config: allow_internal_format, with the SoC profile's default."""

from __future__ import annotations

import sys
from types import ModuleType

from npu_emu import _C


class _Config(ModuleType):
    """Module whose `allow_internal_format` reads and writes the backend's setting."""

    @property
    def allow_internal_format(self) -> bool:
        return _C._allow_internal_format()

    @allow_internal_format.setter
    def allow_internal_format(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"allow_internal_format must be a bool, got {type(value).__name__}")
        _C._set_allow_internal_format(value)


sys.modules[__name__].__class__ = _Config
