"""The JUnit XML report: one testsuite per dtype, one testcase per unit.

Mapping: pass -> passed testcase; fail -> <failure> (mismatch) or <error>
(exception, timeout, crash); xpass -> <failure> ("unexpected pass"); xfail
and skip -> <skipped> with the reason. A machine-dependent unit ("may
fail") that fails is an xfail, one that passes a passed testcase whose output
says it is listed. So a CI system's red cases are exactly the unexpected
results."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Sequence

from npu_emu.conformance.results import UnitResult


def _text(result: UnitResult) -> str:
    mode = {True: "native", False: "fallback", None: "did not run on npu"}[result.native]
    s = result.samples
    lines = [f"samples: {s['passed']} passed, {s['failed']} failed, {s['errored']} errored, "
             f"{s['skipped']} skipped; {mode}"]
    if result.may_fail:
        lines.append(f"machine-dependent, passing or failing accepted: {result.expected_reason}")
    if result.fallback_ops:
        lines.append("fallback ops: " + ", ".join(f"{k} x{v}" for k, v in result.fallback_ops.items()))
    ff = result.first_failure
    if ff:
        lines.append(f"first failure: sample {ff.sample} {ff.description} ({ff.phase})\n{ff.message}")
    return "\n".join(lines)


def build(kind: str, results: Sequence[UnitResult], wall_time_s: float) -> ET.ElementTree:
    suites: dict[str, list[UnitResult]] = {}
    for r in sorted(results, key=lambda r: r.key):
        suites.setdefault(r.dtype or "none", []).append(r)
    root = ET.Element("testsuites", name=f"npu-emu conformance ({kind})", time=f"{wall_time_s:.1f}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for dtype, group in suites.items():
        suite = ET.SubElement(root, "testsuite", name=f"{kind}.{dtype}")
        counts = {"tests": len(group), "failures": 0, "errors": 0, "skipped": 0}
        for r in group:
            case = ET.SubElement(suite, "testcase", classname=f"{kind}.{dtype}", name=r.op,
                                 time=f"{r.duration_s:.3f}")
            ff = r.first_failure
            headline = ff.message.splitlines()[0][:300] if ff and ff.message else r.status
            if r.outcome == "fail" and r.status == "errored":
                ET.SubElement(case, "error", message=headline).text = _text(r)
                counts["errors"] += 1
            elif r.outcome == "fail":
                ET.SubElement(case, "failure", message=headline).text = _text(r)
                counts["failures"] += 1
            elif r.outcome == "xpass":
                ET.SubElement(case, "failure", message=f"unexpected pass (listed as expected failure: "
                                                       f"{r.expected_reason})").text = _text(r)
                counts["failures"] += 1
            elif r.outcome == "xfail":
                what = "machine-dependent, failed here" if r.may_fail else "expected failure"
                ET.SubElement(case, "skipped", message=f"{what}: {r.expected_reason}").text = _text(r)
                counts["skipped"] += 1
            elif r.outcome == "skip":
                ET.SubElement(case, "skipped", message=r.skip_reason or "no sample could be compared")
                counts["skipped"] += 1
            ET.SubElement(case, "system-out").text = _text(r)
        close_suite(suite, counts, totals, sum(r.duration_s for r in group))
    return close_root(root, totals)


def close_suite(suite: ET.Element, counts: dict[str, int], totals: dict[str, int], seconds: float) -> None:
    """A testsuite's counts and time as attributes, its counts added to the totals."""
    for k, v in counts.items():
        suite.set(k, str(v))
        totals[k] += v
    suite.set("time", f"{seconds:.1f}")


def close_root(root: ET.Element, totals: dict[str, int]) -> ET.ElementTree:
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return ET.ElementTree(root)


def write(path: Path, tree: ET.ElementTree) -> None:
    tree.write(path, encoding="utf-8", xml_declaration=True)
