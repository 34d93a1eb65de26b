"""Streams and events: torch.npu.Stream / Event on top of PyTorch's generic
torch.Stream / torch.Event, which reach the backend's DeviceGuardImpl."""

from __future__ import annotations

import ctypes

import torch

from npu_emu import _C
from npu_emu.npu.device import DeviceLike, _check, _index


def _npu_device(device: DeviceLike) -> torch.device:
    return torch.device("npu", _check(_index(device)))


class Stream(torch.Stream):
    """An ordered queue of work on one npu device."""

    def __new__(cls, device: DeviceLike = None, priority: int = 0, **kwargs):
        if "stream_id" in kwargs:  # re-wrapping an existing stream: it must exist (fail fast, as torch_npu)
            if kwargs.get("device_type") == _C._npu_device_type():
                _check(int(kwargs.get("device_index", 0)))  # before torch.Stream narrows it to 8 bits
                _C._stream_handle(int(kwargs["stream_id"]), int(kwargs.get("device_index", 0)))  # unknown id: raises
            return super().__new__(cls, **kwargs)
        with torch.npu.device(_npu_device(device)):
            return super().__new__(cls, device=_npu_device(device), priority=priority)

    @property
    def npu_stream(self) -> int:
        """The ACL stream handle."""
        return _C._stream_handle(self.stream_id, self.device_index)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, torch.Stream) and super().__eq__(other)

    def __hash__(self) -> int:
        return hash((self.stream_id, self.device_index))

    def record_event(self, event: torch.Event | None = None) -> torch.Event:
        """Records `event` (a new torch.npu.Event when None) on this stream.
        torch.Stream.record_event takes only an exact torch.Event."""
        if event is None:
            with torch.npu.device(self.device_index):
                event = Event()
        event.record(self)
        return event

    def __repr__(self) -> str:
        # torch_npu's form: the device and the ACL stream handle.
        return f"<torch_npu.npu.Stream device={self.device} npu_stream={self.npu_stream:#x}>"


class ExternalStream(Stream):
    """Wraps an ACL stream handle created outside PyTorch."""

    def __new__(cls, stream_ptr: int, device: DeviceLike = None, **kwargs):
        stream_id, index, device_type = _C._external_stream(_check(_index(device)), int(stream_ptr))
        return super().__new__(cls, stream_id=stream_id, device_index=index, device_type=device_type)


def _wrap(stream: torch.Stream) -> Stream:
    return Stream(stream_id=stream.stream_id, device_index=stream.device_index, device_type=stream.device_type)


def current_stream(device: DeviceLike = None) -> Stream:
    return _wrap(torch.accelerator.current_stream(_npu_device(device)))


def default_stream(device: DeviceLike = None) -> Stream:
    return Stream(stream_id=0, device_index=_check(_index(device)), device_type=_C._npu_device_type())


def set_stream(stream: torch.Stream | None) -> None:
    if stream is None:
        return
    torch.accelerator.set_stream(stream)


class StreamContext:
    """Makes `stream` current on its device for a `with` block, restoring the
    previous current device and stream after it; a no-op for None."""

    def __init__(self, stream: torch.Stream | None) -> None:
        self.stream = stream
        self._prev_device: int | None = None
        self._prev_stream: torch.Stream | None = None

    def __enter__(self) -> torch.Stream | None:
        if self.stream is None:
            return None
        index = self.stream.device_index
        self._prev_device = torch.npu.current_device()
        self._prev_stream = torch.accelerator.current_stream(torch.device("npu", index))
        torch.npu.set_device(index)
        torch.accelerator.set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc: object) -> None:
        if self.stream is None or self._prev_stream is None or self._prev_device is None:
            return
        torch.accelerator.set_stream(self._prev_stream)
        torch.npu.set_device(self._prev_device)


def stream(stream: torch.Stream | None) -> StreamContext:
    """Makes `stream` current on its device for the block (None: no change)."""
    return StreamContext(stream)


class _NpuEventType(type):
    """isinstance(e, torch.npu.Event) holds for every npu torch.Event, also
    the plain ones PyTorch's generic code (torch.Stream.record_event) makes."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, torch.Event) and obj.device.type == "npu"


class Event(torch.Event, metaclass=_NpuEventType):
    """A marker in a stream; `enable_timing=True` allows elapsed_time.

    A subclass of torch.Event, so PyTorch's stream methods take it; only
    torch.Event.elapsed_time insists on an exact torch.Event argument, which
    is why elapsed_time is timed by npu-emu's extension here."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> "Event":
        if interprocess:
            raise ValueError("Event(interprocess=True) is not supported by npu-emu; allowed: interprocess=False")
        return super().__new__(cls, device=torch.device("npu", torch.npu.current_device()),
                               enable_timing=enable_timing, blocking=blocking, interprocess=False)

    def elapsed_time(self, end_event: torch.Event) -> float:
        """Milliseconds between this event and `end_event` (both recorded, with enable_timing=True)."""
        return _C._event_elapsed_time(self, end_event)

    @property
    def npu_event(self) -> int:
        """The ACL event handle; 0 until the event is first recorded."""
        return self.event_id

    @property
    def _as_parameter_(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self.npu_event)

    def __repr__(self) -> str:
        # torch_npu's form: the ACL event handle, or "uninitialized" before the first record.
        if self.npu_event:
            return f"<torch_npu.npu.Event {self.npu_event:#x}>"
        return "<torch_npu.npu.Event uninitialized>"
