"""NPU_EMU_TRACE=formats[:path]: every format change and every CPU fallback
as one JSON line each, with the Python call site that caused it.

The dispatch layer hands events to `_write` only while a trace is on (one
relaxed atomic load per format cast or fallback otherwise; nothing on the
launch path). Each line carries `v` (schema version), `seq`, `ts_ns`
(time.monotonic_ns), `thread`, `event` ("cast", "copy", "relabel",
"create", "fallback", "entry_cast"), `op` (the outermost aten op or autograd node running
on the thread, "" when none) and `op_stack`, `site` / `stack` (the innermost
Python frames outside torch and npu_emu; empty in autograd's backward
threads, where `op` names the backward node), and the event's own fields:
cast/copy/relabel: `from`, `to`, `shape`, `dtype`, `bytes`, `reason`,
`decided_by`; create: `tensor`, `reason`, `decided_by`; fallback:
`fallback_op`, `inputs`, `outputs` (shape, dtype, format, storage_shape of
each npu tensor), `bytes` (to the CPU and back); entry_cast (a conversion an
aclnn entry of the emulator makes inside the op: a private-format parameter
read into base-format scratch, or an output's scratch laid into its private
storage; NPU=emu only): `entry`, `param`, `from`, `to`, `shape` (logical),
`dtype`, `bytes`. A later timeline can read
the same lines: they are timestamped and carry their thread.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

from npu_emu import _C

SCHEMA_VERSION = 1
ENV = "NPU_EMU_TRACE"
_TORCH_DIR = str(Path(torch.__file__).resolve().parent)
_NPU_EMU_DIR = str(Path(__file__).resolve().parents[1])


class _Trace:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by stop())
        self.lock = threading.Lock()
        self.seq = 0


_active: _Trace | None = None


def _internal(filename: str) -> bool:
    return filename.startswith((_TORCH_DIR, _NPU_EMU_DIR)) or filename.startswith("<")


def _user_frames(limit: int = 4) -> list[dict]:
    frames = []
    # Above _write: the Python code that called into the op (none at all in
    # autograd's backward threads).
    frame = sys._getframe(1).f_back
    while frame is not None and len(frames) < limit:
        name = frame.f_code.co_filename
        if not _internal(name):
            frames.append({"file": name, "line": frame.f_lineno, "function": frame.f_code.co_name})
        frame = frame.f_back
    return frames


def _write(event: dict) -> None:
    trace = _active
    if trace is None:
        return
    stack = _user_frames()
    event["site"] = f"{stack[0]['file']}:{stack[0]['line']} ({stack[0]['function']})" if stack else ""
    event["stack"] = stack
    event["thread"] = threading.get_ident()
    event["ts_ns"] = time.monotonic_ns()
    event["v"] = SCHEMA_VERSION
    with trace.lock:
        trace.seq += 1
        event["seq"] = trace.seq
        trace.file.write(json.dumps(event) + "\n")


def start(path: str | Path | None = None) -> Path:
    """Starts writing the format trace to `path` (appended; default
    npu_emu_formats.<pid>.jsonl in the working directory). One trace at a time."""
    global _active
    if _active is not None:
        raise RuntimeError(f"a format trace is already being written to {_active.path}; stop() it first")
    target = Path(path) if path else Path.cwd() / f"npu_emu_formats.{os.getpid()}.jsonl"
    _active = _Trace(target)
    _C._set_format_trace(_write)
    return target


def stop() -> Path | None:
    """Stops the trace (a no-op when none runs); returns the file written."""
    global _active
    trace = _active
    if trace is None:
        return None
    _C._set_format_trace(None)
    _active = None
    with trace.lock:
        trace.file.close()
    return trace.path


def active_path() -> Path | None:
    return None if _active is None else _active.path


@contextmanager
def tracing(path: str | Path | None = None) -> Iterator[Path]:
    """`with tracing("t.jsonl"): ...`: the format trace of the block."""
    target = start(path)
    try:
        yield target
    finally:
        stop()


def start_from_env() -> Path | None:
    """Applies NPU_EMU_TRACE ("formats" or "formats:PATH"); unset or empty: nothing."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    kind, _, path = value.partition(":")
    if kind != "formats":
        raise ValueError(f"{ENV} must be 'formats' or 'formats:PATH', got {value!r}")
    return start(path or None)


atexit.register(stop)
