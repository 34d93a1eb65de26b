"""npu_emu.profiler.profile: a timeline of what npu-emu's streams ran.

While the context is open the emulator records every task its streams
accept (aclnn kernels, async copies and memsets, event records and waits:
submit, start and end times, launching and running thread), and a dispatch
mode records the aten ops on npu tensors that launched them (shapes, FLOPs,
bytes, the device-time estimate, allocator bytes after each op). Tasks are
matched to their op by thread and time: a task is submitted while its op
runs on the launching thread."""

from __future__ import annotations

import bisect
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from npu_emu.profiler import _native
from npu_emu.profiler.estimate import OpCost, op_cost
from npu_emu.profiler.soc_perf import DevicePeaks, peaks


@dataclass
class OpEvent:
    """One aten op that touched npu tensors, as the launching thread saw it."""

    name: str
    begin_ns: int
    end_ns: int
    thread: int
    device: int
    shapes: list[list[int]]
    dtypes: list[str]
    cost: OpCost
    allocated: int | None = None
    reserved: int | None = None
    tasks: list["TaskEvent"] = field(default_factory=list)


@dataclass
class TaskEvent:
    """One task a stream ran."""

    name: str
    seq: int
    stream: int
    device: int
    kind: str  # "kernel", "copy", "memset", "event_record", "event_wait", "other"
    submit_ns: int
    start_ns: int
    end_ns: int
    submit_thread: int
    run_thread: int
    failed: bool
    op: OpEvent | None = None
    estimated_us: float | None = None


def _kind(name: str, flags: int) -> str:
    if flags & _native.FLAG_KERNEL:
        return "kernel"
    return {
        "aclrtMemcpyAsync": "copy",
        "aclrtMemsetAsync": "memset",
        "aclrtRecordEvent": "event_record",
        "aclrtStreamWaitEvent": "event_wait",
    }.get(name, "other")


class _OpRecorder(TorchDispatchMode):
    """Sees each top-level aten op (its own calls inside are not re-entered)."""

    def __init__(self, session: "Profile") -> None:
        super().__init__()
        self.session = session

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        begin = time.monotonic_ns()
        out = func(*args, **kwargs)
        end = time.monotonic_ns()
        self.session._record_op(func, args, kwargs, out, begin, end)
        return out


class Profile:
    """The context manager npu_emu.profiler.profile returns; read it after the
    `with` block: `tasks`, `ops`, `export_chrome_trace(path)`, `summary()`."""

    def __init__(self, *, memory: bool = True, soc: str | None = None) -> None:
        self.memory = memory
        self.soc = soc
        self.ops: list[OpEvent] = []
        self.tasks: list[TaskEvent] = []
        self.peaks: DevicePeaks | None = None
        self.start_ns = 0
        self.stop_ns = 0
        self.realtime_offset_ns = 0
        self._lock = threading.Lock()
        self._mode: _OpRecorder | None = None

    # --- recording ---------------------------------------------------------
    def __enter__(self) -> "Profile":
        torch.npu.synchronize()
        self.peaks = self._device_peaks()
        _native.enable(True)
        self.start_ns = time.monotonic_ns()
        # CLOCK_REALTIME - CLOCK_MONOTONIC: what places this trace on the
        # wall-clock time line of a torch.profiler (kineto) trace.
        self.realtime_offset_ns = time.time_ns() - time.monotonic_ns()
        self._mode = _OpRecorder(self)
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._mode is not None
        self._mode.__exit__(*exc)
        self._mode = None
        try:
            for index in range(torch.npu.device_count()):
                torch.npu.synchronize(index)
        finally:
            records = _native.take()
            _native.enable(False)
            self.stop_ns = time.monotonic_ns()
        self._build(records)

    def _device_peaks(self) -> DevicePeaks | None:
        props = torch.npu.get_device_properties(torch.npu.current_device())
        name = self.soc or props.name
        try:
            return peaks(name, int(props.cube_core_num), int(props.vector_core_num))
        except ValueError:
            if self.soc is not None:
                raise
            return None  # a SoC without figures: a timeline without estimates

    def _record_op(self, func: Any, args: tuple, kwargs: dict, out: Any, begin: int, end: int) -> None:
        tensors = [x for x in tree_flatten((args, kwargs, out))[0] if isinstance(x, torch.Tensor)]
        npu = [t for t in tensors if t.device.type == "npu"]
        if not npu:
            return
        device = npu[0].device.index or 0
        event = OpEvent(
            name=str(getattr(func, "overloadpacket", func)).removeprefix("aten."),
            begin_ns=begin, end_ns=end, thread=threading.get_native_id(), device=device,
            shapes=[list(t.shape) for t in tensors], dtypes=[str(t.dtype).removeprefix("torch.") for t in tensors],
            cost=op_cost(func, args, kwargs, out))
        if self.memory:
            event.allocated = torch.npu.memory_allocated(device)
            event.reserved = torch.npu.memory_reserved(device)
        with self._lock:
            self.ops.append(event)

    def _build(self, records: list[_native.TaskRecord]) -> None:
        by_thread: dict[int, list[OpEvent]] = {}
        for op in sorted(self.ops, key=lambda o: o.begin_ns):
            by_thread.setdefault(op.thread, []).append(op)
        begins = {tid: [o.begin_ns for o in ops] for tid, ops in by_thread.items()}
        for r in sorted(records, key=lambda r: r.seq):
            name = r.name.decode()
            task = TaskEvent(name, r.seq, r.stream, r.device, _kind(name, r.flags), r.submit_ns, r.start_ns,
                             r.end_ns, r.submit_tid, r.run_tid, bool(r.flags & _native.FLAG_FAILED))
            ops = by_thread.get(r.submit_tid, [])
            i = bisect.bisect_right(begins.get(r.submit_tid, []), r.submit_ns) - 1
            if i >= 0 and ops[i].end_ns >= r.submit_ns:
                task.op = ops[i]
                ops[i].tasks.append(task)
            self.tasks.append(task)
        self._estimate()

    def _estimate(self) -> None:
        """Each device task costs the launch cost; an op's roofline time is
        shared among its kernels (or its copy tasks, for a copy op)."""
        if self.peaks is None:
            return
        launch_us = self.peaks.perf.launch_s * 1e6
        for task in self.tasks:
            task.estimated_us = launch_us
        for op in self.ops:
            busy = [t for t in op.tasks if t.kind in ("kernel", "copy", "memset")]
            if busy:
                share = op.cost.seconds(self.peaks) * 1e6 / len(busy)
                for t in busy:
                    t.estimated_us = launch_us + share

    # --- results -----------------------------------------------------------
    def streams(self) -> list[tuple[int, int]]:
        """(device, stream address) of every stream used, in order of first use."""
        seen: dict[tuple[int, int], None] = {}
        for t in self.tasks:
            seen.setdefault((t.device, t.stream), None)
        return list(seen)

    def kernel_names(self) -> list[str]:
        return [t.name for t in self.tasks if t.kind == "kernel"]

    def summary(self, top: int = 20) -> str:
        """Per task name: calls, emulator time, estimated device time and its
        share, heaviest estimate first."""
        rows: dict[str, list[float]] = {}
        for t in self.tasks:
            row = rows.setdefault(t.name, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += (t.end_ns - t.start_ns) / 1e3
            row[2] += t.estimated_us or 0.0
        total = sum(r[2] for r in rows.values()) or 1.0
        soc = self.peaks.soc if self.peaks else "no SoC figures"
        lines = [f"{'task':<36}{'calls':>7}{'emulator us':>14}{'est. ' + soc + ' us':>24}{'share':>8}"]
        for name, (calls, emu, est) in sorted(rows.items(), key=lambda kv: -kv[1][2])[:top]:
            lines.append(f"{name:<36}{int(calls):>7}{emu:>14.1f}{est:>24.2f}{100 * est / total:>7.1f}%")
        return "\n".join(lines)

    def export_chrome_trace(self, path: str | Path, merge_with: str | Path | None = None,
                            format_trace: str | Path | None = None) -> Path:
        """Writes the trace to `path`. `merge_with`: a torch.profiler trace
        (export_chrome_trace's file) whose events are written along with
        these, on its time line. `format_trace`: an NPU_EMU_TRACE=formats
        file whose casts and fallbacks of this profile's time are added."""
        from npu_emu.profiler.chrome_trace import write

        return write(self, Path(path), None if merge_with is None else Path(merge_with),
                     None if format_trace is None else Path(format_trace))
