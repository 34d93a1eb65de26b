"""Comparing an upstream npu run with the CPU run of the same tests
(`npu-emu conformance upstream --device cpu`): PyTorch instantiates the same
generic test as TestFooCPU.test_x_cpu_float32 and TestFooNPU.test_x_npu_float32,
so a CPU test id maps onto its npu one. The same selection is the tests that
were reported on both sides (a file cut by a time limit reports a different
prefix of its tests on each)."""

from __future__ import annotations

import re
from typing import Any, Iterable

from npu_emu.conformance.results import UnitResult

_CPU_CLASS = re.compile(r"(?<=\w)CPU(?=::|$)")
_CPU_NAME = re.compile(r"_cpu(?=_|$|\[)")


def npu_form(tid: str) -> str:
    """The npu test id of a CPU test id (already canonical ids are unchanged)."""
    parts = tid.split("::")
    if len(parts) >= 3:
        parts[-2] = _CPU_CLASS.sub("NPU", parts[-2])
        parts[-1] = _CPU_NAME.sub("_npu", parts[-1])
    return "::".join(parts)


def _tests(units: Iterable[UnitResult]) -> dict[str, UnitResult]:
    """Per test (npu form), leaving out the runner's file-level units."""
    return {npu_form(u.test_id): u for u in units if u.test_id and u.pytest_outcome}


def _passed(u: UnitResult) -> bool:
    return u.pytest_outcome in ("passed", "xpassed")


def failing_ids(cpu_units: Iterable[UnitResult]) -> set[str]:
    """The tests (npu form) the CPU run failed or errored."""
    return {tid for tid, u in _tests(cpu_units).items() if u.pytest_outcome in ("failed", "error")}


def compare(npu_units: Iterable[UnitResult], cpu_units: Iterable[UnitResult], source: str) -> dict[str, Any]:
    """Per file and in total, over the tests reported on both sides: how many
    passed on CPU, on npu, and the ratio; the same over the tests neither
    side skipped (a test restricted to one device type, @onlyCPU or
    @onlyNativeDeviceTypes, skips on the other); plus the tests that passed
    on CPU but not on npu."""
    npu, cpu = _tests(npu_units), _tests(cpu_units)
    common = sorted(set(npu) & set(cpu))
    files: dict[str, dict[str, Any]] = {}
    for tid in common:
        f = files.setdefault(tid.split("::", 1)[0], {"tests": 0, "cpu_passed": 0, "npu_passed": 0,
                                                     "cpu_only_passed": 0, "npu_only_passed": 0, "ran_on_both": 0,
                                                     "cpu_passed_of_ran": 0, "npu_passed_of_ran": 0})
        f["tests"] += 1
        if cpu[tid].pytest_outcome != "skipped" and npu[tid].pytest_outcome != "skipped":
            f["ran_on_both"] += 1
            f["cpu_passed_of_ran"] += _passed(cpu[tid])
            f["npu_passed_of_ran"] += _passed(npu[tid])
        f["cpu_passed"] += _passed(cpu[tid])
        f["npu_passed"] += _passed(npu[tid])
        f["cpu_only_passed"] += _passed(cpu[tid]) and not _passed(npu[tid])
        f["npu_only_passed"] += _passed(npu[tid]) and not _passed(cpu[tid])
    keys = ("tests", "cpu_passed", "npu_passed", "cpu_only_passed", "npu_only_passed", "ran_on_both",
            "cpu_passed_of_ran", "npu_passed_of_ran")
    total = {k: sum(f[k] for f in files.values()) for k in keys}
    for f in [*files.values(), total]:
        f["ratio"] = round(f["npu_passed"] / f["cpu_passed"], 4) if f["cpu_passed"] else None
        f["ratio_of_ran"] = (round(f["npu_passed_of_ran"] / f["cpu_passed_of_ran"], 4) if f["cpu_passed_of_ran"]
                             else None)
    return {"source": source, "only_npu_reported": len(set(npu) - set(cpu)),
            "only_cpu_reported": len(set(cpu) - set(npu)), "files": files, "total": total,
            "cpu_only_passed": [tid for tid in common if _passed(cpu[tid]) and not _passed(npu[tid])]}
