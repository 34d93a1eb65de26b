"""torch_npu.profiler on npu-emu: torch.profiler with npu's device activity
(ProfilerActivity.NPU is PyTorch's PrivateUse1, fed by npu-emu's kineto
plugin, dispatch/profiler/kineto_plugin.cpp), taking torch_npu's arguments:

    with torch_npu.profiler.profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],
            schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=2),
            on_trace_ready=torch_npu.profiler.tensorboard_trace_handler("./prof"),
            experimental_config=torch_npu.profiler._ExperimentalConfig(
                profiler_level=torch_npu.profiler.ProfilerLevel.Level1)) as prof:
        for step in range(4):
            train_step(); prof.step()

What differs from torch_npu: the trace is PyTorch's (kineto's Chrome trace
with npu-emu's streams), not msprof's; tensorboard_trace_handler writes it as
<worker>_<time>_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json and writes
none of msprof's CSV/DB summaries; _ExperimentalConfig's settings are checked
and kept as trace metadata but collect nothing (profiler_config.py)."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import torch
import torch.profiler as _tp

from npu_emu.torch_npu_compat.profiler_config import (
    AiCMetrics,
    ExportType,
    HostSystem,
    ProfilerLevel,
    _ExperimentalConfig,
    supported_ai_core_metrics,
    supported_export_type,
    supported_profiler_level,
)

# PyTorch's enum: with the backend named "npu", PrivateUse1 is spelled NPU.
ProfilerActivity = _tp.ProfilerActivity
ProfilerAction = _tp.ProfilerAction
_KinetoProfile = _tp._KinetoProfile

__all__ = ["profile", "ProfilerActivity", "supported_activities", "tensorboard_trace_handler", "schedule",
           "ProfilerAction", "_ExperimentalConfig", "supported_profiler_level", "supported_ai_core_metrics",
           "supported_export_type", "ProfilerLevel", "AiCMetrics", "ExportType", "HostSystem"]


def schedule(wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], Any]:
    """torch_npu's Schedule signature (warmup optional, positional order
    wait, active, warmup, ...) over torch.profiler.schedule. Bad values raise
    (torch_npu warns and resets them)."""
    for name, value, least in (("wait", wait, 0), ("active", active, 1), ("warmup", warmup, 0),
                               ("repeat", repeat, 0), ("skip_first", skip_first, 0),
                               ("skip_first_wait", skip_first_wait, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"torch_npu.profiler.schedule: {name} must be an int >= {least}, got {value!r}")
    return _tp.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first,
                        skip_first_wait=skip_first_wait)


def supported_activities() -> set:
    """CPU and NPU (torch_npu's default activities)."""
    return {ProfilerActivity.CPU, ProfilerActivity.PrivateUse1}


class profile(_tp.profile):  # noqa: N801 (torch_npu's name)
    """torch.profiler.profile with torch_npu's defaults (CPU and NPU) and its
    `experimental_config` (a torch_npu.profiler._ExperimentalConfig)."""

    def __init__(self, *, activities: Iterable[Any] | None = None, schedule: Callable[[int], Any] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None,
                 execution_trace_observer: Any = None, custom_trace_id_callback: Callable[[], str] | None = None,
                 use_cuda: bool | None = None) -> None:
        if use_cuda:
            raise ValueError("torch_npu.profiler.profile: use_cuda is not supported on npu; "
                             "use activities=[ProfilerActivity.CPU, ProfilerActivity.NPU]")
        npu_config: _ExperimentalConfig | None = None
        if isinstance(experimental_config, _ExperimentalConfig):
            npu_config, experimental_config = experimental_config, None
        elif experimental_config is not None and not isinstance(experimental_config,
                                                                torch._C._profiler._ExperimentalConfig):
            raise TypeError("torch_npu.profiler.profile: experimental_config must be a "
                            f"torch_npu.profiler._ExperimentalConfig, got {type(experimental_config).__name__}")
        chosen = set(activities) if activities is not None else supported_activities()
        unknown = [a for a in chosen if a not in supported_activities()]
        if unknown:
            raise ValueError(f"torch_npu.profiler.profile: activities must be among "
                             f"{sorted(str(a) for a in supported_activities())}, got {unknown}")
        super().__init__(activities=chosen, schedule=schedule, on_trace_ready=on_trace_ready,
                         record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules, experimental_config=experimental_config,
                         execution_trace_observer=execution_trace_observer,
                         custom_trace_id_callback=custom_trace_id_callback)
        self.npu_config = npu_config
        if npu_config is not None:
            for key, value in npu_config.metadata().items():
                self.preset_metadata_json(key, json.dumps(value))


def _worker_name() -> str:
    return f"{socket.gethostname()}_{os.getpid()}"


def tensorboard_trace_handler(dir_name: str | None = None, worker_name: str | None = None,
                              analyse_flag: bool = True, async_mode: bool = False) -> Callable[[Any], None]:
    """on_trace_ready handler: each ready trace goes to
    dir_name/<worker>_<time>_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
    (dir_name default: ASCEND_WORK_PATH/profiling_data or the working
    directory, as torch_npu). `analyse_flag`/`async_mode`: accepted; the trace
    is written when it is ready, there is no offline analysis to run."""
    for name, flag in (("analyse_flag", analyse_flag), ("async_mode", async_mode)):
        if not isinstance(flag, bool):
            raise TypeError(f"tensorboard_trace_handler: {name} must be a bool, got {flag!r}")
    if dir_name is None:
        work = os.environ.get("ASCEND_WORK_PATH")
        dir_name = str(Path(work) / "profiling_data") if work else "."
    root = Path(dir_name)

    def handler(prof: _tp.profile) -> None:
        stamp = time.strftime("%Y%m%d%H%M%S") + f"{int(time.time() * 1000) % 1000:03d}"
        out = root / f"{worker_name or _worker_name()}_{stamp}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True, exist_ok=True)
        prof.export_chrome_trace(str(out / "trace_view.json"))

    return handler
