"""Chrome trace JSON (chrome://tracing, ui.perfetto.dev) of a Profile:
process "host" with one track per launching thread (aten ops), process
"npu:N emulator" with one track per stream (what ran, when, on this
machine), process "npu:N estimated on <SoC>" with the same tasks laid end to
end by their estimated device time (no task starting before it was
submitted), and allocator counters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from npu_emu.profiler.recorder import Profile

_HOST_PID = 0


def _emulator_pid(device: int) -> int:
    return 1 + 2 * device


def _estimate_pid(device: int) -> int:
    return 2 + 2 * device


def _meta(kind: str, pid: int, tid: int | None, name: str, sort: int | None = None) -> list[dict[str, Any]]:
    event: dict[str, Any] = {"ph": "M", "name": kind, "pid": pid, "args": {"name": name}}
    if tid is not None:
        event["tid"] = tid
    out = [event]
    if sort is not None:
        sort_kind = "thread_sort_index" if tid is not None else "process_sort_index"
        out.append({"ph": "M", "name": sort_kind, "pid": pid, **({"tid": tid} if tid is not None else {}),
                    "args": {"sort_index": sort}})
    return out


def events(profile: "Profile") -> list[dict[str, Any]]:
    t0 = profile.start_ns

    def us(ns: int) -> float:
        return (ns - t0) / 1e3

    out: list[dict[str, Any]] = []
    out += _meta("process_name", _HOST_PID, None, "host", 0)
    for tid in sorted({op.thread for op in profile.ops}):
        out += _meta("thread_name", _HOST_PID, tid, f"thread {tid}")
    for op in profile.ops:
        out.append({"ph": "X", "cat": "aten", "name": op.name, "pid": _HOST_PID, "tid": op.thread,
                    "ts": us(op.begin_ns), "dur": (op.end_ns - op.begin_ns) / 1e3,
                    "args": {"shapes": op.shapes, "dtypes": op.dtypes, "device": op.device,
                             "unit": op.cost.unit, "flops": op.cost.flops, "bytes": op.cost.bytes,
                             "tasks": [t.name for t in op.tasks]}})
        if op.allocated is not None:
            out.append({"ph": "C", "name": "allocator", "pid": _emulator_pid(op.device), "ts": us(op.end_ns),
                        "args": {"allocated": op.allocated, "reserved": op.reserved}})

    soc = profile.peaks.soc if profile.peaks else None
    stream_tids: dict[tuple[int, int], int] = {}
    for device, stream in profile.streams():
        tid = 1 + sum(1 for d, _ in stream_tids if d == device)
        stream_tids[(device, stream)] = tid
        if tid == 1:
            out += _meta("process_name", _emulator_pid(device), None, f"npu:{device} emulator", 1 + 2 * device)
            if soc:
                out += _meta("process_name", _estimate_pid(device), None, f"npu:{device} estimated on {soc}",
                             2 + 2 * device)
        label = f"stream {tid} (0x{stream:x})"
        out += _meta("thread_name", _emulator_pid(device), tid, label, tid)
        if soc:
            out += _meta("thread_name", _estimate_pid(device), tid, label, tid)

    estimated_free: dict[tuple[int, int], float] = {}
    for task in profile.tasks:
        key = (task.device, task.stream)
        tid = stream_tids[key]
        args: dict[str, Any] = {"seq": task.seq, "kind": task.kind, "submitted_us": us(task.submit_ns),
                                "submit_thread": task.submit_thread, "run_thread": task.run_thread}
        if task.op is not None:
            args.update(aten_op=task.op.name, shapes=task.op.shapes, flops=task.op.cost.flops,
                        bytes=task.op.cost.bytes, unit=task.op.cost.unit)
        if task.estimated_us is not None:
            args["estimated_us"] = task.estimated_us
        if task.failed:
            args["failed"] = True
        out.append({"ph": "X", "cat": task.kind, "name": task.name, "pid": _emulator_pid(task.device),
                    "tid": tid, "ts": us(task.start_ns), "dur": (task.end_ns - task.start_ns) / 1e3, "args": args})
        if task.estimated_us is not None:
            start = max(estimated_free.get(key, 0.0), us(task.submit_ns))
            estimated_free[key] = start + task.estimated_us
            out.append({"ph": "X", "cat": task.kind, "name": task.name, "pid": _estimate_pid(task.device),
                        "tid": tid, "ts": start, "dur": task.estimated_us, "args": dict(args)})
    return out


# Where this trace's processes go in a merged one: clear of kineto's pids
# (the host process id, device indices).
_MERGED_PID_BASE = 1 << 30


def _merge(profile: "Profile", ours: list[dict[str, Any]], torch_trace: dict[str, Any]) -> dict[str, Any]:
    """Our events moved onto kineto's time line (its ts are microseconds of
    CLOCK_REALTIME after baseTimeNanoseconds) next to its own events."""
    base_ns = int(torch_trace.get("baseTimeNanoseconds", 0))
    shift_us = (profile.start_ns + profile.realtime_offset_ns - base_ns) / 1e3
    for event in ours:
        event["pid"] += _MERGED_PID_BASE
        if "ts" in event:
            event["ts"] += shift_us
            for key in ("submitted_us",):
                if key in event.get("args", {}):
                    event["args"][key] += shift_us
    merged = dict(torch_trace)
    merged["traceEvents"] = list(torch_trace.get("traceEvents", [])) + ours
    return merged


# The host process's track for NPU_EMU_TRACE=formats lines (their `thread`
# is Python's thread ident, not the native id the op tracks use).
_FORMAT_TRACE_TID = 0


def format_trace_events(profile: "Profile", trace_path: Path) -> list[dict[str, Any]]:
    """The lines of a format trace (NPU_EMU_TRACE=formats, schema v1: `ts_ns`
    in time.monotonic_ns, `event`, `op`, ...) written while `profile` ran, as
    instant events on a "format casts and fallbacks" track of the host."""
    out = _meta("thread_name", _HOST_PID, _FORMAT_TRACE_TID, "format casts and fallbacks (NPU_EMU_TRACE)", -1)
    for line in trace_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        ts_ns = record.get("ts_ns")
        if not isinstance(ts_ns, int) or not profile.start_ns <= ts_ns <= profile.stop_ns:
            continue
        name = f"{record.get('event', '?')} {record.get('op', '')}".strip()
        out.append({"ph": "i", "s": "t", "cat": "format", "name": name, "pid": _HOST_PID,
                    "tid": _FORMAT_TRACE_TID, "ts": (ts_ns - profile.start_ns) / 1e3, "args": record})
    return out


def write(profile: "Profile", path: Path, merge_with: Path | None = None, format_trace: Path | None = None) -> Path:
    ours = events(profile)
    if format_trace is not None:
        ours += format_trace_events(profile, format_trace)
    if merge_with is not None:
        document = _merge(profile, ours, json.loads(merge_with.read_text(encoding="utf-8")))
    else:
        document = {"traceEvents": ours, "displayTimeUnit": "ns",
                    "otherData": {"producer": "npu_emu.profiler", "schema_version": 1,
                                  "clock": "CLOCK_MONOTONIC, ts in us from the start of the profile"}}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path
