"""torch_npu.profiler's settings (_ExperimentalConfig, ProfilerLevel,
AiCMetrics, ExportType, HostSystem) as npu-emu accepts them: checked like
torch_npu checks them, recorded in the trace's metadata, and otherwise
without effect — the emulator has no AI Core counters, L2 cache or msprof
database to collect (torch.profiler's own settings, record_shapes and the
like, do take effect)."""

from __future__ import annotations

from typing import Any


class ProfilerLevel:
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"
    Level_none = "Level_none"


class AiCMetrics:
    PipeUtilization = "ACL_AICORE_PIPE_UTILIZATION"
    ArithmeticUtilization = "ACL_AICORE_ARITHMETIC_UTILIZATION"
    Memory = "ACL_AICORE_MEMORY_BANDWIDTH"
    MemoryL0 = "ACL_AICORE_L0B_AND_WIDTH"
    MemoryUB = "ACL_AICORE_MEMORY_UB"
    ResourceConflictRatio = "ACL_AICORE_RESOURCE_CONFLICT_RATIO"
    L2Cache = "ACL_AICORE_L2_CACHE"
    MemoryAccess = "ACL_AICORE_MEMORY_ACCESS"
    AiCoreNone = "ACL_AICORE_NONE"


class ExportType:
    Db = "db"
    Text = "text"


class HostSystem:
    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"
    NUMA = "numa"


def _values(cls: type) -> set[str]:
    return {v for k, v in vars(cls).items() if not k.startswith("_")}


def supported_profiler_level() -> set[str]:
    return _values(ProfilerLevel)


def supported_ai_core_metrics() -> set[str]:
    return _values(AiCMetrics)


def supported_export_type() -> set[str]:
    return _values(ExportType)


def _check(name: str, value: Any, allowed: set[str]) -> None:
    if value not in allowed:
        raise ValueError(f"torch_npu.profiler._ExperimentalConfig: {name} must be one of {sorted(allowed)}, "
                         f"got {value!r}")


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"torch_npu.profiler._ExperimentalConfig: {name} must be a bool, got {value!r}")


class _ExperimentalConfig:
    """torch_npu's Ascend-specific profiler settings; see the module docstring
    for what npu-emu does with them."""

    def __init__(self, profiler_level: str = ProfilerLevel.Level0, aic_metrics: str = AiCMetrics.PipeUtilization,
                 l2_cache: bool = False, msprof_tx: bool = False, mstx: bool = False,
                 data_simplification: bool = True, record_op_args: bool = False, op_attr: bool = False,
                 gc_detect_threshold: float | None = None, export_type: str | list[str] = ExportType.Text,
                 host_sys: list[str] | None = None, mstx_domain_include: list[str] | None = None,
                 mstx_domain_exclude: list[str] | None = None, sys_io: bool = False,
                 sys_interconnection: bool = False) -> None:
        _check("profiler_level", profiler_level, supported_profiler_level())
        _check("aic_metrics", aic_metrics, supported_ai_core_metrics())
        for name, flag in (("l2_cache", l2_cache), ("msprof_tx", msprof_tx), ("mstx", mstx),
                           ("data_simplification", data_simplification), ("record_op_args", record_op_args),
                           ("op_attr", op_attr), ("sys_io", sys_io), ("sys_interconnection", sys_interconnection)):
            _check_bool(name, flag)
        exports = [export_type] if isinstance(export_type, str) else list(export_type)
        for e in exports:
            _check("export_type", e, supported_export_type())
        if ExportType.Db in exports:
            raise NotImplementedError("torch_npu.profiler._ExperimentalConfig: export_type 'db' (msprof's SQLite "
                                      "database) is not produced by npu-emu; use ExportType.Text (a Chrome trace)")
        for h in host_sys or []:
            _check("host_sys", h, _values(HostSystem))
        if gc_detect_threshold is not None and (not isinstance(gc_detect_threshold, (int, float))
                                                or gc_detect_threshold < 0):
            raise ValueError("torch_npu.profiler._ExperimentalConfig: gc_detect_threshold must be a number >= 0 "
                             f"or None, got {gc_detect_threshold!r}")
        # torch_npu collects no AI Core metrics below Level1 either.
        if profiler_level in (ProfilerLevel.Level0, ProfilerLevel.Level_none):
            aic_metrics = AiCMetrics.AiCoreNone
        self.profiler_level = profiler_level
        self.aic_metrics = aic_metrics
        self.l2_cache = l2_cache
        self.mstx = mstx or msprof_tx
        self.data_simplification = data_simplification
        self.record_op_args = record_op_args
        self.op_attr = op_attr
        self.gc_detect_threshold = gc_detect_threshold
        self.export_type = exports
        self.host_sys = list(host_sys or [])
        self.mstx_domain_include = list(mstx_domain_include or [])
        self.mstx_domain_exclude = list(mstx_domain_exclude or [])
        self.sys_io = sys_io
        self.sys_interconnection = sys_interconnection

    def metadata(self) -> dict[str, str]:
        """The settings as trace metadata (accepted, not applied)."""
        return {"npu_profiler_level": self.profiler_level, "npu_aic_metrics": self.aic_metrics,
                "npu_export_type": ",".join(self.export_type)}
