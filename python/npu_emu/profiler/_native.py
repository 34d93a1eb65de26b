"""The emulator's task recorder (emulator/task_recorder.cpp), read with ctypes:
an emulator-only facility with no ACL counterpart, so not in the driver table."""

from __future__ import annotations

import ctypes
import functools

from npu_emu import _backend


class TaskRecord(ctypes.Structure):
    # The layout of aclemuTaskRecord in include/acl/acl_emu_profiling.h.
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("seq", ctypes.c_uint64),
        ("stream", ctypes.c_uint64),
        ("device", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
        ("submit_ns", ctypes.c_int64),
        ("start_ns", ctypes.c_int64),
        ("end_ns", ctypes.c_int64),
        ("submit_tid", ctypes.c_int64),
        ("run_tid", ctypes.c_int64),
    ]


FLAG_KERNEL = 1
FLAG_MAY_BLOCK = 2
FLAG_FAILED = 4


@functools.cache
def _library() -> ctypes.CDLL:
    mode = _backend.activate()
    if mode != "emu":
        raise RuntimeError(f"npu_emu.profiler records the emulator's streams; it needs NPU=emu, not NPU={mode}")
    # The same file the driver loaded: dlopen hands back that instance.
    lib = ctypes.CDLL(str(_backend._EMULATOR_LIBRARY))
    lib.aclemuTaskRecorderEnable.argtypes = [ctypes.c_int]
    lib.aclemuTaskRecorderEnable.restype = None
    lib.aclemuTaskRecorderTake.argtypes = [ctypes.POINTER(TaskRecord), ctypes.c_size_t]
    lib.aclemuTaskRecorderTake.restype = ctypes.c_size_t
    return lib


def enable(on: bool) -> None:
    """On: clears earlier records and starts recording every submitted task."""
    _library().aclemuTaskRecorderEnable(1 if on else 0)


def take() -> list[TaskRecord]:
    """Every finished task recorded so far (removed from the recorder)."""
    lib = _library()
    out: list[TaskRecord] = []
    while True:
        waiting = lib.aclemuTaskRecorderTake(None, 0)
        if waiting == 0:
            return out
        buffer = (TaskRecord * waiting)()
        got = lib.aclemuTaskRecorderTake(buffer, waiting)
        out.extend(buffer[:got])
