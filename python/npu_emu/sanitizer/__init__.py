"""Stream race detector for user code (NPU_EMU_SANITIZE=streams).

Tracks the reads and writes of every npu storage per stream, and the
synchronizations between streams (events, wait_stream, synchronize) as vector
clocks; an access that is not ordered after a conflicting access on another
stream raises StreamRaceError with both Python stacks."""

from __future__ import annotations

import atexit
import os

from npu_emu.sanitizer.accesses import AccessTracker, StreamRaceError
from npu_emu.sanitizer.clocks import Clocks
from npu_emu.sanitizer.dispatch_mode import StreamAccessMode
from npu_emu.sanitizer.sync_hooks import SyncHooks

__all__ = ["StreamRaceError", "disable", "enable", "enable_from_env", "is_enabled"]

_ENV = "NPU_EMU_SANITIZE"
_ALLOWED = ("streams",)


class _Sanitizer:
    def __init__(self) -> None:
        self.clocks = Clocks()
        self.mode = StreamAccessMode(AccessTracker(self.clocks))
        self.hooks = SyncHooks(self.clocks)

    def start(self) -> None:
        self.hooks.install()
        self.mode.__enter__()

    def stop(self) -> None:
        self.mode.__exit__(None, None, None)
        self.hooks.uninstall()


_active: _Sanitizer | None = None


def enable() -> None:
    """Starts race detection for ops issued from the calling thread from now on
    (and from autograd's backward, which inherits it); idempotent."""
    global _active
    if _active is None:
        import npu_emu  # noqa: F401  (activates the backend: torch.npu must exist)

        sanitizer = _Sanitizer()
        sanitizer.start()
        _active = sanitizer
        # A dispatch mode still pushed when the interpreter finalizes aborts
        # the process (std::terminate); this runs before the backend's own atexit.
        atexit.unregister(disable)
        atexit.register(disable)


def disable() -> None:
    """Stops race detection and forgets all recorded accesses."""
    global _active
    if _active is not None:
        _active.stop()
        _active = None


def is_enabled() -> bool:
    return _active is not None


def enable_from_env() -> None:
    """Enables the detector if NPU_EMU_SANITIZE=streams; any other non-empty value is an error."""
    value = os.environ.get(_ENV, "").strip()
    if not value:
        return
    if value not in _ALLOWED:
        raise ValueError(f"{_ENV}={value!r} is not a valid setting; allowed values: "
                         f"{', '.join(_ALLOWED)} (or unset)")
    enable()
