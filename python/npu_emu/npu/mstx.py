"""torch.npu.mstx: msprof's tool-extension markers. npu-emu has no msprof:
the calls reach `native` (torch_npu._C._mstx), which records markers
nowhere, as the CANN stand-in does with profiling calls; ranges still get
ids. Arguments are checked as torch_npu checks them: a bad message, domain
or stream warns and the call returns 0 (range_start), -1 (range_push/pop)
or nothing, without reaching `native`."""

from __future__ import annotations

import functools
import itertools
import warnings
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["annotate", "mstx"]


class _NativeMstx:
    """The backend of the markers (torch_npu._C._mstx's functions). Tools
    and tests may replace its attributes; mstx looks them up per call."""

    def __init__(self) -> None:
        self._range_ids = itertools.count(1)
        self._pushed: dict[str, list[str]] = {}

    def _mark(self, message: str, stream_id: int = 0, device_index: int = 0, device_type: int = 0,
              domain: str = "default") -> None:
        pass

    def _mark_on_host(self, message: str, domain: str = "default") -> None:
        pass

    def _range_start(self, message: str, stream_id: int = 0, device_index: int = 0, device_type: int = 0,
                     domain: str = "default") -> int:
        return next(self._range_ids)

    def _range_start_on_host(self, message: str, domain: str = "default") -> int:
        return next(self._range_ids)

    def _range_end(self, range_id: int, domain: str = "default") -> None:
        pass

    def _range_push(self, message: str, stream_id: int = 0, device_index: int = 0, device_type: int = 0,
                    domain: str = "default") -> int:
        return self._range_push_on_host(message, domain)

    def _range_push_on_host(self, message: str, domain: str = "default") -> int:
        """The depth of the new range in its domain (0 for the outermost)."""
        stack = self._pushed.setdefault(domain, [])
        stack.append(message)
        return len(stack) - 1

    def _range_pop(self, domain: str = "default") -> int:
        """The depth of the range closed, -1 when none is open."""
        stack = self._pushed.get(domain)
        if not stack:
            return -1
        stack.pop()
        return len(stack)


native = _NativeMstx()


def _bad(what: str, argument: str) -> None:
    warnings.warn(f"Invalid {argument} for mstx.{what}. Please provide a valid {argument}.", stacklevel=3)


def _valid_message_and_domain(message: Any, domain: Any, what: str) -> bool:
    if not message or not isinstance(message, str):
        _bad(what, "message")
        return False
    if not domain or not isinstance(domain, str):
        _bad(what, "domain")
        return False
    return True


def _npu_stream(stream: Any, what: str) -> torch.Stream | None | bool:
    """The stream for a device-side marker, None for a host-side one, False
    (after warning) for anything that is not an npu stream."""
    if not stream:
        return None
    if isinstance(stream, torch.Stream) and stream.device.type == "npu":
        return stream
    _bad(what, "stream")
    return False


class mstx:  # noqa: N801  (torch_npu's name)
    @staticmethod
    def mark(message: str, stream: Any = None, domain: str = "default") -> None:
        if not _valid_message_and_domain(message, domain, "mark"):
            return
        target = _npu_stream(stream, "mark")
        if target is None:
            native._mark_on_host(message, domain)
        elif target is not False:
            native._mark(message, target.stream_id, target.device_index, target.device_type, domain)

    @staticmethod
    def range_push(message: str, stream: Any = None, domain: str = "default") -> int:
        if not _valid_message_and_domain(message, domain, "range_push"):
            return -1
        target = _npu_stream(stream, "range_push")
        if target is None:
            return native._range_push_on_host(message, domain)
        if target is False:
            return -1
        return native._range_push(message, target.stream_id, target.device_index, target.device_type, domain)

    @staticmethod
    def range_pop(domain: str = "default") -> int:
        if not domain or not isinstance(domain, str):
            _bad("range_pop", "domain")
            return -1
        return native._range_pop(domain)

    @staticmethod
    def range_start(message: str, stream: Any = None, domain: str = "default") -> int:
        if not _valid_message_and_domain(message, domain, "range_start"):
            return 0
        target = _npu_stream(stream, "range_start")
        if target is None:
            return native._range_start_on_host(message, domain)
        if target is False:
            return 0
        return native._range_start(message, target.stream_id, target.device_index, target.device_type, domain)

    @staticmethod
    def range_end(range_id: int, domain: str = "default") -> None:
        if not isinstance(range_id, int):
            _bad("range_end", "range_id (the value mstx.range_start returned)")
            return
        if not domain or not isinstance(domain, str):
            _bad("range_end", "domain")
            return
        native._range_end(range_id, domain)

    @staticmethod
    def mstx_range(message: str, stream: Any = None, domain: str = "default") -> Callable[..., Any]:
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(fn)
            def in_range(*args: Any, **kwargs: Any) -> Any:
                range_id = mstx.range_start(message, stream, domain)
                try:
                    return fn(*args, **kwargs)
                finally:
                    mstx.range_end(range_id, domain)

            return in_range

        return decorate


class annotate:  # noqa: N801
    """A marker range as a `with` block or a decorator (named after the
    function when no message is given)."""

    def __init__(self, message: str = "", stream: Any = None, domain: str = "default") -> None:
        self.message, self.stream, self.domain = message, stream, domain
        self.range_id: int | None = None

    def __enter__(self) -> "annotate":
        self.range_id = mstx.range_start(self.message, self.stream, self.domain)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.range_id is not None:
            mstx.range_end(self.range_id, self.domain)
            self.range_id = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return mstx.mstx_range(self.message or fn.__name__, self.stream, self.domain)(fn)


mstx.annotate = annotate
