"""Per-storage record of the last write and the reads since, and the race check."""

from __future__ import annotations

import sys
import traceback
import weakref
from dataclasses import dataclass, field

import torch

from npu_emu.sanitizer.clocks import Clocks, StreamKey


Frame = tuple[str, int, str]  # (filename, line number, function)


class StreamRaceError(RuntimeError):
    """Two accesses to one npu storage on different streams, at least one a
    write, with no synchronization ordering them."""


@dataclass(frozen=True)
class Access:
    """One op's read or write of a storage."""

    is_write: bool
    stream: StreamKey
    seq: int
    op: str
    stack: tuple[Frame, ...]


@dataclass
class StorageRecord:
    """Accesses of one live storage; `alive` tells a reused address apart."""

    alive: weakref.ref
    last_write: Access | None = None
    reads: dict[StreamKey, Access] = field(default_factory=dict)
    # Streams given to tensor.record_stream: the allocator itself waits for
    # them before handing the block out again.
    protected: set[StreamKey] = field(default_factory=set)
    # Accesses to the previous storage at this address that nothing ordered
    # before its reuse; checked against the first access of the new one.
    freed: list[Access] = field(default_factory=list)

    def unprotected_accesses(self) -> list[Access]:
        accesses = [self.last_write, *self.reads.values()]
        return [a for a in accesses if a is not None and a.stream not in self.protected]


def capture_stack() -> tuple[Frame, ...]:
    """The calling stack, innermost first. Capturing is done per op: only
    names and numbers are kept; source lines are read if a race is reported."""
    frames: list[Frame] = []
    frame = sys._getframe(1)
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    return tuple(frames)


# Frames of the detector itself and of torch's call plumbing, not of the program.
_PLUMBING = ("/npu_emu/sanitizer/", "/torch/utils/_python_dispatch.py", "/torch/_compile.py", "/torch/_dynamo/")


_MAX_FRAMES = 12  # innermost frames shown per stack


def _user_frames(stack: tuple[Frame, ...]) -> str:
    """The stack without the sanitizer's and torch's dispatch frames, oldest first."""
    frames = [traceback.FrameSummary(name=f[2], filename=f[0], lineno=f[1]) for f in reversed(stack)
              if not any(part in f[0] for part in _PLUMBING)]
    hidden = max(0, len(frames) - _MAX_FRAMES)
    outer = f"  ... {hidden} outer frames ...\n" if hidden else ""
    return outer + "".join(traceback.format_list(frames[hidden:])) or "  (no Python frames)\n"


def _stream_name(key: StreamKey) -> str:
    return f"npu:{key[0]} stream_id={key[1]}" + (" (default stream)" if key[1] == 0 else "")


def _describe(tensor: torch.Tensor) -> str:
    return (f"tensor of shape {tuple(tensor.shape)}, dtype {tensor.dtype}, storage data_ptr "
            f"{tensor.untyped_storage().data_ptr():#x} on {tensor.device}")


def race_message(tensor: torch.Tensor, current: Access, previous: Access, reuse: bool = False) -> str:
    kind = {True: "write", False: "read"}
    what = (f"reuse of a memory block freed while {_stream_name(previous.stream)} may still use it, "
            f"now the storage of a {_describe(tensor)}; the earlier access was to the freed tensor and it was "
            f"freed without tensor.record_stream({_stream_name(previous.stream)})" if reuse
            else f"{kind[current.is_write]} after {kind[previous.is_write]} of a {_describe(tensor)}")
    return (
        f"npu-emu stream sanitizer (NPU_EMU_SANITIZE=streams): unsynchronized {what}.\n"
        f"Now: {current.op} {kind[current.is_write]}s it on {_stream_name(current.stream)} at\n"
        f"{_user_frames(current.stack)}"
        f"Before: {previous.op} {'wrote' if previous.is_write else 'read'} it on {_stream_name(previous.stream)} at\n"
        f"{_user_frames(previous.stack)}"
        f"Nothing orders the two: make {_stream_name(current.stream)} wait for the other stream "
        f"(stream.wait_stream(other), or event.record(other) then stream.wait_event(event)), or synchronize "
        f"(torch.npu.synchronize()); when freeing a tensor used on another stream, call tensor.record_stream(stream).")


class AccessTracker:
    """Checks each access against the storage's earlier accesses."""

    def __init__(self, clocks: Clocks) -> None:
        self.clocks = clocks
        self.storages: dict[tuple[int, int], StorageRecord] = {}

    def _record(self, tensor: torch.Tensor) -> StorageRecord:
        storage = tensor.untyped_storage()
        key = (tensor.device.index or 0, storage.data_ptr())
        record = self.storages.get(key)
        if record is None or record.alive() is None:
            # A new storage; if it reuses a freed one's block, the old accesses
            # on other streams must be ordered before its first use.
            freed = record.unprotected_accesses() if record is not None else []
            record = StorageRecord(alive=weakref.ref(storage), freed=freed)
            self.storages[key] = record
        return record

    def allocate(self, tensor: torch.Tensor) -> None:
        """A new storage no op has written yet (torch.empty)."""
        if tensor.untyped_storage().nbytes() != 0:
            self._record(tensor)

    def protect(self, tensor: torch.Tensor, stream: StreamKey) -> None:
        """tensor.record_stream(stream): the block is not reused before `stream` is done with it."""
        if tensor.untyped_storage().nbytes() != 0:
            self._record(tensor).protected.add(stream)

    def _check(self, tensor: torch.Tensor, current: Access, previous: Access | None, reuse: bool = False) -> None:
        if previous is None or previous.stream == current.stream:
            return
        if not self.clocks.happened_before(previous.stream, previous.seq, current.stream):
            raise StreamRaceError(race_message(tensor, current, previous, reuse))

    def access(self, tensor: torch.Tensor, current: Access) -> None:
        """Records `current`; raises StreamRaceError if it races an earlier access."""
        if tensor.untyped_storage().nbytes() == 0:
            return
        record = self._record(tensor)
        freed, record.freed = record.freed, []
        for previous in freed:
            self._check(tensor, current, previous, reuse=True)
        self._check(tensor, current, record.last_write)
        if current.is_write:
            for read in record.reads.values():
                self._check(tensor, current, read)
            record.last_write = current
            record.reads = {}
        else:
            record.reads[current.stream] = current
