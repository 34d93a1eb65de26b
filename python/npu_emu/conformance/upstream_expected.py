"""The expected-failures file of upstream runs (PyTorch's own test files):
conformance/upstream_expected_failures.txt.

One test per line, `<test id>: <cause>`, the test id being
`<file relative to test/>::<class>::<test name with device and dtype>` in its
canonical form (the class's device suffix NPU, whichever of PRIVATEUSE1 or
NPU PyTorch chose in the run: pytest_plugin.canonical_id), e.g.
`test_ops.py::TestCommonNPU::test_compare_cpu_add_npu_float32: RuntimeError: ...`.
A file that fails to import is `<file>::(collection)`. A file's crash or
time limit (the runner's unit `<file>`) is never added by --update-expected:
it ends the file's run and should fail it. `#` starts a comment line.

A listed test that fails (failed or error, as pytest counts it) is an
expected failure; a listed test that passes is an unexpected pass and fails
the run until its line is removed; an unlisted failure fails the run. Tests
PyTorch itself marks as expected failures (pytest's xfailed) are expected
without being listed. `--update-expected` rewrites the file from a run: the
tests that failed are added with their cause (existing causes kept), the
ones that passed removed, tests not run kept."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from npu_emu.conformance.causes import cause
from npu_emu.conformance.expected import read_entries, write_entries
from npu_emu.conformance.pytest_plugin import canonical_id
from npu_emu.conformance.results import UnitResult

FILE_NAME = "upstream_expected_failures.txt"

HEADER = """\
# Expected failures of PyTorch's own test files on npu (npu-emu conformance upstream).
# One test per line: <test id>: <cause>. The test id is <file>::<class>::<test>
# with the class's device suffix written NPU (it matches PyTorch's PRIVATEUSE1
# name too). A listed test that fails is an expected failure; one that passes
# is an unexpected pass (the run fails until its line is removed). Regenerate,
# keeping the causes already written, with the command in docs/upstream_ci.md
# (npu-emu conformance upstream ... --update-expected). A new entry's cause is
# the exception type and its message's first line, numbers and shapes masked;
# "also fails on CPU" when the CPU reference run (--cpu-report) failed it too.
"""


def load(path: Path) -> dict[str, str]:
    """{canonical test id: cause}; a missing file is empty."""
    return read_entries(path, "<file>::<class>::<test>: <cause>", lambda key: "::" in key or key.endswith(".py"),
                        canonical=canonical_id, twice=" (PRIVATEUSE1 and NPU name the same test)")


def save(path: Path, entries: dict[str, str]) -> None:
    write_entries(path, HEADER, entries)


def failing(result: UnitResult) -> bool:
    """Failed or errored, as pytest counts it (not PyTorch's own xfails)."""
    return result.pytest_outcome in ("failed", "error") or (
        not result.pytest_outcome and result.status in ("failed", "errored"))


def describe(result: UnitResult, cpu_failing: set[str] | None = None) -> str:
    """A new entry's cause: the grouped cause of its failure, and whether the
    CPU reference run failed the same test."""
    message = result.first_failure.message if result.first_failure else result.status
    text = cause(message)
    if cpu_failing is not None and result.test_id in cpu_failing:
        text = f"also fails on CPU: {text}"
    return text


def updated(entries: dict[str, str], results: Iterable[UnitResult],
            cpu_failing: set[str] | None = None) -> dict[str, str]:
    new = dict(entries)
    for result in results:
        if not result.pytest_outcome:  # the runner's unit for a file's crash or time limit: never expected
            continue
        if failing(result):
            new[result.test_id] = entries.get(result.test_id) or describe(result, cpu_failing)
        elif result.pytest_outcome in ("passed", "xpassed", "xfailed"):
            new.pop(result.test_id, None)
    return new


def apply(result: UnitResult, entries: dict[str, str]) -> None:
    """Sets the unit's outcome: pytest's xfailed is an expected failure by
    PyTorch's own marks; a non-strict xpassed is a pass (pytest does not fail
    it); otherwise the file decides."""
    if result.pytest_outcome == "xfailed":
        reason = result.first_failure.message if result.first_failure else ""
        result.apply_expectation(entries.get(result.test_id) or f"expected failure by the test file's own mark "
                                                                 f"(pytest xfail){': ' + reason if reason else ''}")
        return
    result.apply_expectation(entries.get(result.test_id))
