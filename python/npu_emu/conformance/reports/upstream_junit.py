"""The JUnit XML report of an upstream run (PyTorch's own test files), in
pytest's own --junitxml shape so a CI's test history matches: one testsuite
per file, each test's classname and name as pytest writes them
(`test_ops.TestCommonPRIVATEUSE1`, `test_compare_cpu_add_npu_float32`).

Mapping (pytest's outcome, then the expected-failures file):
- passed, and pytest's non-strict xpassed: a passed testcase;
- failed / error, not listed: <failure> / <error> with the exception;
- failed / error, listed: <skipped type="npu-emu.xfail"> with the listed cause;
- pytest's xfailed (the test file's own mark): <skipped type="pytest.xfail">,
  as pytest writes it;
- listed but passed (unexpected pass): <failure> naming the entry;
- skipped: <skipped> with the reason.
Each testcase has a property pytest_outcome (pytest's own word for it). A
CI's red cases are exactly the unexpected results."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Sequence

from npu_emu.conformance.reports.junit_report import close_root, close_suite, write  # noqa: F401 (write is this module's too)
from npu_emu.conformance.results import UnitResult

_ILLEGAL = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32)])


def _clean(text: str) -> str:
    """XML 1.0 has no control characters (a tensor's repr may carry one)."""
    return text.translate(_ILLEGAL)


def kind_of(r: UnitResult) -> str:
    """The testcase's child element: '' (passed), failure, error or skipped."""
    if r.outcome == "xpass":
        return "failure"
    if r.outcome == "fail":
        return "error" if r.status == "errored" else "failure"
    if r.outcome in ("xfail", "skip"):
        return "skipped"
    return ""


def _case(suite: ET.Element, r: UnitResult) -> str:
    case = ET.SubElement(suite, "testcase", classname=r.classname, name=r.name, time=f"{r.duration_s:.3f}")
    props = ET.SubElement(case, "properties")
    ET.SubElement(props, "property", name="pytest_outcome", value=r.pytest_outcome or "error")
    kind = kind_of(r)
    message = r.first_failure.message if r.first_failure else ""
    headline = next((ln for ln in message.splitlines() if ln.strip()), r.status)
    if kind in ("failure", "error") and r.outcome == "fail":
        ET.SubElement(case, kind, message=_clean(headline)).text = _clean(r.details or message)
    elif kind == "failure":
        ET.SubElement(case, "failure", message=f"unexpected pass: listed as an expected failure "
                                               f"({r.expected_reason})")
    elif r.outcome == "xfail":
        own = r.pytest_outcome == "xfailed"
        ET.SubElement(case, "skipped", type="pytest.xfail" if own else "npu-emu.xfail",
                      message=_clean(r.expected_reason)).text = _clean(r.details or message)
    elif kind == "skipped":
        ET.SubElement(case, "skipped", type="pytest.skip", message=_clean(r.skip_reason or "skipped"))
    return kind


def build(results: Sequence[UnitResult], wall_time_s: float) -> ET.ElementTree:
    files: dict[str, list[UnitResult]] = {}
    for r in results:  # in the order pytest ran them
        files.setdefault(r.op.split("::", 1)[0], []).append(r)
    root = ET.Element("testsuites", name="npu-emu conformance (upstream)", time=f"{wall_time_s:.1f}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for file, group in files.items():
        suite = ET.SubElement(root, "testsuite", name=file)
        counts = {"tests": len(group), "failures": 0, "errors": 0, "skipped": 0}
        for r in group:
            kind = _case(suite, r)
            if kind:
                counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[kind]] += 1
        close_suite(suite, counts, totals, sum(r.duration_s for r in group))
    return close_root(root, totals)
