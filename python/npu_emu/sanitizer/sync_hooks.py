"""Wraps the Python-level stream/event/synchronize calls of torch.npu so the
clocks see every synchronization the program makes.

torch.Stream and torch.Event are immutable C types: npu-emu's Stream subclass
is patched, and while the sanitizer is on torch.npu.Event makes events of a
tracking subclass of torch.Event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from npu_emu.npu import streams as npu_streams
from npu_emu.sanitizer.clocks import Clocks, StreamKey


_INHERITED = object()


def _key(stream: torch.Stream) -> StreamKey:
    return (stream.device_index, stream.stream_id)


def _current() -> StreamKey:
    return _key(torch.accelerator.current_stream(torch.device("npu", torch.npu.current_device())))


def _device_index(device: Any) -> int | None:
    if device is None:
        return torch.npu.current_device()
    if isinstance(device, int):
        return device
    index = torch.device(device).index
    return torch.npu.current_device() if index is None else index


class SyncHooks:
    """Installs and removes the wrappers; all of them feed one Clocks."""

    def __init__(self, clocks: Clocks) -> None:
        self.clocks = clocks
        self._saved: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        # A name the class only inherits is deleted again on uninstall.
        self._saved.append((owner, name, vars(owner).get(name, _INHERITED)))
        setattr(owner, name, replacement)

    def install(self) -> None:
        clocks = self.clocks
        event_class = _tracking_event_class(clocks)
        stream_class = npu_streams.Stream
        # The methods as they are now (torch.Stream's, or an override of npu-emu's Stream).
        original = {name: getattr(stream_class, name)
                    for name in ("wait_stream", "wait_event", "synchronize", "query")}

        def wait_stream(self: torch.Stream, stream: torch.Stream) -> None:
            original["wait_stream"](self, stream)
            clocks.wait_stream(_key(self), _key(stream))

        def wait_event(self: torch.Stream, event: torch.Event) -> None:
            original["wait_event"](self, event)
            clocks.wait_event(_key(self), id(event))

        def record_event(self: torch.Stream, event: torch.Event | None = None) -> torch.Event:
            event = event if event is not None else event_class(device=self.device)
            event.record(self)
            clocks.record_event(id(event), _key(self))  # also for a plain torch.Event passed in
            return event

        def synchronize(self: torch.Stream) -> None:
            original["synchronize"](self)
            clocks.host_sync_stream(_key(self))

        def query(self: torch.Stream) -> bool:
            done = original["query"](self)
            if done:
                clocks.host_sync_stream(_key(self))
            return done

        for name, method in (("wait_stream", wait_stream), ("wait_event", wait_event),
                             ("record_event", record_event), ("synchronize", synchronize), ("query", query)):
            self._patch(stream_class, name, method)

        def make_event(enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> torch.Event:
            if interprocess:
                raise ValueError("Event(interprocess=True) is not supported by npu-emu; allowed: interprocess=False")
            return event_class(device=torch.device("npu", torch.npu.current_device()), enable_timing=enable_timing,
                               blocking=blocking)

        self._patch(torch.npu, "Event", _EventFactory(make_event))
        self._patch(torch.npu, "synchronize", _device_sync(torch.npu.synchronize, clocks))
        self._patch(torch.accelerator, "synchronize", _device_sync(torch.accelerator.synchronize, clocks))

    def uninstall(self) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


def _device_sync(original: Callable[..., None], clocks: Clocks) -> Callable[..., None]:
    def synchronize(device: Any = None) -> None:
        original(device)
        clocks.host_sync_device(_device_index(device))
    synchronize.__doc__ = original.__doc__
    return synchronize


class _EventFactory(type):
    """Keeps isinstance(e, torch.npu.Event) true for every npu event."""

    def __new__(mcs, make: Callable[..., torch.Event]) -> Any:
        return super().__new__(mcs, "Event", (), {"_make": staticmethod(make)})

    def __init__(cls, make: Callable[..., torch.Event]) -> None:
        super().__init__("Event", (), {})

    def __call__(cls, *args: Any, **kwargs: Any) -> torch.Event:
        return cls._make(*args, **kwargs)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, torch.Event) and obj.device.type == "npu"


def _tracking_event_class(clocks: Clocks) -> type:
    class TrackedEvent(torch.Event):
        """A torch.Event whose record/wait/synchronize/query feed the clocks.

        torch.Event.elapsed_time accepts only exact torch.Event arguments: a
        plain twin event is recorded right after this one and timed instead."""

        def __init__(self, device: Any = None, enable_timing: bool = False, blocking: bool = False) -> None:
            super().__init__()
            self._twin = torch.Event(device=self.device, enable_timing=enable_timing, blocking=blocking)

        def record(self, stream: torch.Stream | None = None) -> None:
            stream = stream if stream is not None else torch.accelerator.current_stream(self.device)
            super().record(stream)
            self._twin.record(stream)
            clocks.record_event(id(self), _key(stream))

        def elapsed_time(self, end_event: torch.Event) -> float:
            return self._twin.elapsed_time(getattr(end_event, "_twin", end_event))

        def wait(self, stream: torch.Stream | None = None) -> None:
            stream = stream if stream is not None else torch.accelerator.current_stream(self.device)
            super().wait(stream)
            clocks.wait_event(_key(stream), id(self))

        def synchronize(self) -> None:
            super().synchronize()
            self._twin.synchronize()  # elapsed_time needs it complete too
            clocks.host_sync_event(id(self))

        def query(self) -> bool:
            done = super().query() and self._twin.query()
            if done:
                clocks.host_sync_event(id(self))
            return done

        def __del__(self) -> None:
            clocks.forget_event(id(self))

    return TrackedEvent
