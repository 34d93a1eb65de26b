"""torch.npu names that control Ascend hardware or its tools (device
recovery, limits, profiling markers, super kernels ...): present so that
scripts import, each raising one clear error when called."""

from __future__ import annotations

from typing import Any, NoReturn

from npu_emu.npu.not_supported import refuse, refusing

__all__ = ["ExternalEvent", "NpuGraphOpHandler", "SyncLaunchStream", "are_compatible_impl_enabled",
           "get_device_limit",
           "get_stream_limit", "register_npu_graph_handler", "reset_stream_limit", "restart_device",
           "set_deterministic_level", "set_device_limit", "set_stream_limit", "stop_device",
           "super_kernel_scope_begin", "super_kernel_scope_end", "use_compatible_impl", "utilization"]

_HW = "it needs Ascend hardware"

stop_device = refusing("torch.npu.stop_device()", "device fault recovery " + _HW)
restart_device = refusing("torch.npu.restart_device()", "device fault recovery " + _HW)
set_device_limit = refusing("torch.npu.set_device_limit()", "core limits " + _HW)
get_device_limit = refusing("torch.npu.get_device_limit()", "core limits " + _HW)
set_stream_limit = refusing("torch.npu.set_stream_limit()", "core limits " + _HW)
reset_stream_limit = refusing("torch.npu.reset_stream_limit()", "core limits " + _HW)
get_stream_limit = refusing("torch.npu.get_stream_limit()", "core limits " + _HW)
utilization = refusing("torch.npu.utilization()", "AI core utilization " + _HW)
super_kernel_scope_begin = refusing("torch.npu.super_kernel_scope_begin()", "super kernels need the graph compiler")
super_kernel_scope_end = refusing("torch.npu.super_kernel_scope_end()", "super kernels need the graph compiler")
register_npu_graph_handler = refusing("torch.npu.register_npu_graph_handler()", "there is no aclgraph capture")
set_deterministic_level = refusing("torch.npu.set_deterministic_level()",
                                   "use torch.use_deterministic_algorithms(True)")
_compatible_impl = [False]


def use_compatible_impl(enabled: bool) -> None:
    """Recorded only: npu-emu's ops have one implementation each, which
    already computes PyTorch's (CPU-compatible) results."""
    if not isinstance(enabled, bool):
        raise TypeError(f"use_compatible_impl: enabled must be a bool, got {type(enabled).__name__}")
    _compatible_impl[0] = enabled


def are_compatible_impl_enabled() -> bool:
    return _compatible_impl[0]


class SyncLaunchStream:
    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.SyncLaunchStream", "use torch.npu.Stream with torch.npu.synchronize()")


class ExternalEvent:
    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.ExternalEvent", "use torch.npu.Event")


class NpuGraphOpHandler:
    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.NpuGraphOpHandler", "there is no aclgraph capture")
