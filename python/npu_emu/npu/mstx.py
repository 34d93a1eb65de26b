"""torch.npu.mstx: msprof's tool-extension markers. npu-emu has no msprof, so
markers are accepted and recorded nowhere (as the CANN stand-in does with
profiling calls); ranges still get ids, and bad arguments warn as torch_npu's."""

from __future__ import annotations

import functools
import itertools
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["annotate", "mstx"]

_range_ids = itertools.count(1)
_pushed: dict[str, list[int]] = {}


def _valid(message: Any, domain: Any, what: str) -> bool:
    if not message or not isinstance(message, str):
        warnings.warn(f"Invalid message for mstx.{what}. Please provide a valid message string.", stacklevel=3)
        return False
    if not domain or not isinstance(domain, str):
        warnings.warn(f"Invalid domain for mstx.{what}. Please provide a valid domain string.", stacklevel=3)
        return False
    return True


class mstx:  # noqa: N801  (torch_npu's name)
    @staticmethod
    def mark(message: str, stream: Any = None, domain: str = "default") -> None:
        _valid(message, domain, "mark")

    @staticmethod
    def range_push(message: str, stream: Any = None, domain: str = "default") -> int:
        if not _valid(message, domain, "range_push"):
            return -1
        range_id = next(_range_ids)
        _pushed.setdefault(domain, []).append(range_id)
        return range_id

    @staticmethod
    def range_pop(domain: str = "default") -> int:
        stack = _pushed.get(domain)
        return stack.pop() if stack else -1

    @staticmethod
    def range_start(message: str, stream: Any = None, domain: str = "default") -> int:
        return next(_range_ids) if _valid(message, domain, "range_start") else -1

    @staticmethod
    def range_end(range_id: int, domain: str = "default") -> None:
        if not isinstance(range_id, int) or range_id < 0:
            warnings.warn("Invalid range_id for mstx.range_end.", stacklevel=2)

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
    """A marker range as a `with` block or a decorator."""

    def __init__(self, message: str = "", stream: Any = None, domain: str = "default") -> None:
        self.message, self.stream, self.domain = message, stream, domain
        self.range_id = -1

    def __enter__(self) -> "annotate":
        self.range_id = mstx.range_start(self.message, self.stream, self.domain)
        return self

    def __exit__(self, *exc: object) -> None:
        mstx.range_end(self.range_id, self.domain)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return mstx.mstx_range(self.message, self.stream, self.domain)(fn)
