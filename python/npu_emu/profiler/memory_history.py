"""torch.npu.memory._record_memory_history / _snapshot / _dump_snapshot in the
format of torch.cuda.memory's, so PyTorch's memory viz
(https://pytorch.org/memory_viz, torch.cuda._memory_viz) reads them.

Segments and blocks are the caching allocator's own (memory_snapshot()).
The allocation history is recorded above the allocator, by a dispatch mode
on the thread that turned it on (and autograd's threads, which inherit
it): every new storage an aten op returns on an npu device is an "alloc"
with the Python frames that caused it, and the storage's end a
"free_requested" and "free_completed". Allocations made without an aten op
(caching_allocator_alloc, C++ internals such as format-cast scratch) are
not in the history; they are in the segments."""

from __future__ import annotations

import pickle
import sys
import threading
import time
import traceback
import weakref
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

_ALLOWED = ("all", "state", None)


class _History(TorchDispatchMode):
    def __init__(self, max_entries: int, stacks: bool) -> None:
        super().__init__()
        self.active = False
        self.max_entries = max_entries
        self.stacks = stacks
        self.live: set[int] = set()
        self.traces: dict[int, list[dict[str, Any]]] = {}
        self.lock = threading.Lock()

    def _append(self, device: int, entry: dict[str, Any]) -> None:
        with self.lock:
            trace = self.traces.setdefault(device, [])
            trace.append(entry)
            if len(trace) > self.max_entries:
                del trace[: len(trace) - self.max_entries]

    def _frames(self) -> list[dict[str, Any]]:
        if not self.stacks:
            return []
        # The Python frames that led to the op, innermost first, without
        # this module's own.
        stack = traceback.extract_stack(sys._getframe(1))
        return [{"filename": f.filename, "line": f.lineno or 0, "name": f.name}
                for f in reversed(stack) if f.filename != __file__]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.device.type == "npu":
                self._note(t)
        return out

    def _note(self, tensor: torch.Tensor) -> None:
        storage = tensor.untyped_storage()
        address = storage.data_ptr()
        size = storage.nbytes()
        if address == 0 or address in self.live:
            return
        device = tensor.device.index or 0
        stream = torch.npu.current_stream(device).stream_id
        entry = {"action": "alloc", "addr": address, "size": size, "stream": stream,
                 "time_us": time.time_ns() // 1000, "frames": self._frames()}
        self.live.add(address)
        self._append(device, entry)
        weakref.finalize(storage, self._freed, device, address, size, stream)

    def _freed(self, device: int, address: int, size: int, stream: int) -> None:
        self.live.discard(address)
        now = time.time_ns() // 1000
        for action in ("free_requested", "free_completed"):
            self._append(device, {"action": action, "addr": address, "size": size, "stream": stream,
                                  "time_us": now, "frames": []})


_history: _History | None = None


def _record_memory_history(enabled: str | None = "all", context: str | None = "all", stacks: str = "all",
                           max_entries: int = sys.maxsize, device: Any = None, **_ignored: Any) -> None:
    """Starts (enabled="all" or "state") or stops (enabled=None) recording the
    allocation history of this thread's aten ops; `stacks`="python" or "all"
    keep Python frames, None drops them. The history of a stop is kept for
    _snapshot until the next start."""
    global _history
    if enabled not in _ALLOWED:
        raise ValueError(f"_record_memory_history: enabled must be one of {_ALLOWED}, got {enabled!r}")
    if stacks not in ("python", "all", None):
        raise ValueError(f"_record_memory_history: stacks must be 'python', 'all' or None, got {stacks!r}")
    if _history is not None and _history.active:
        _history.__exit__(None, None, None)
        _history.active = False
    if enabled is None:
        return
    _history = _History(max_entries, stacks is not None and context is not None)
    _history.__enter__()
    _history.active = True


def _snapshot(device: Any = None) -> dict[str, Any]:
    """{"segments": the allocator's segments and blocks, "device_traces": one
    list of alloc/free entries per device, "allocator_settings": {}}."""
    from npu_emu.npu.memory import memory_snapshot

    segments = memory_snapshot()
    count = torch.npu.device_count()
    traces: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    if _history is not None:
        with _history.lock:
            for index, trace in _history.traces.items():
                if index < count:
                    traces[index] = list(trace)
    for segment in segments:
        for block in segment.get("blocks", []):
            block.setdefault("frames", [])
    return {"segments": segments, "device_traces": traces, "allocator_settings": {}}


def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
    """Pickles _snapshot() to `filename` (what memory_viz loads)."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)

