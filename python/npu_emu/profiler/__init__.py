"""npu_emu.profiler: a timeline of npu-emu's streams (launches, copies,
event records and waits, allocator bytes) with each kernel's estimated time
on the emulated SoC, exported as a Chrome/Perfetto trace.

    with npu_emu.profiler.profile() as prof:
        model(x).sum().backward()
    prof.export_chrome_trace("step.json")
    print(prof.summary())

torch.profiler with ProfilerActivity.PrivateUse1 shows the same tasks, their
estimates (kineto_estimate.py) and the allocator's events through the kineto
plugin, dispatch/profiler/kineto_plugin.cpp (README "Profiling"). The memory history for PyTorch's memory viz:
torch.npu.memory._record_memory_history / _snapshot (memory_history.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from npu_emu.profiler.recorder import Profile

__all__ = ["OpEvent", "Profile", "TaskEvent", "profile"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: torch.npu.memory imports memory_history from this
    # package at startup, and the recorder pulls in torch's FLOP formulas.
    if name in ("OpEvent", "Profile", "TaskEvent"):
        from npu_emu.profiler import recorder

        return getattr(recorder, name)
    raise AttributeError(f"module 'npu_emu.profiler' has no attribute {name!r}")


def profile(*, memory: bool = True, soc: str | None = None) -> Profile:
    """A context manager recording the device timeline. `memory`: sample the
    allocator after each op; `soc`: estimate for this SoC instead of the
    device's own (e.g. "Ascend910B3")."""
    from npu_emu.profiler.recorder import Profile

    return Profile(memory=memory, soc=soc)
