"""Totals over unit results, shared by every report format."""

from __future__ import annotations

from typing import Any, Iterable

from npu_emu.conformance.results import OUTCOMES, SAMPLE_STATUSES, UNIT_STATUSES, UnitResult


def _rate(passed: int, ran: int) -> float | None:
    return round(passed / ran, 4) if ran else None


def totals(results: Iterable[UnitResult]) -> dict[str, Any]:
    """Counts of units by status and outcome, of samples by status, and the
    pass rate of native and of fallback units (passed / units that ran, i.e.
    not skipped)."""
    results = list(results)
    status = {s: sum(r.status == s for r in results) for s in UNIT_STATUSES}
    outcome = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    samples = {s: sum(r.samples.get(s, 0) for r in results) for s in SAMPLE_STATUSES}
    native = [r for r in results if r.native is True and r.status != "skipped"]
    fallback = [r for r in results if r.native is False and r.status != "skipped"]
    ran = [r for r in results if r.status != "skipped"]
    return {
        "units": len(results),
        "status": status,
        "outcome": outcome,
        "samples": samples,
        "pass_rate": _rate(status["passed"], len(ran)),
        "native_units": len(native),
        "native_passed": sum(r.status == "passed" for r in native),
        "native_pass_rate": _rate(sum(r.status == "passed" for r in native), len(native)),
        "fallback_units": len(fallback),
        "fallback_passed": sum(r.status == "passed" for r in fallback),
        "fallback_pass_rate": _rate(sum(r.status == "passed" for r in fallback), len(fallback)),
    }


def by_dtype(results: Iterable[UnitResult]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[UnitResult]] = {}
    for r in results:
        groups.setdefault(r.dtype, []).append(r)
    return {dtype: totals(group) for dtype, group in sorted(groups.items())}


def unexpected(results: Iterable[UnitResult]) -> list[UnitResult]:
    return [r for r in results if r.outcome in ("fail", "xpass")]
