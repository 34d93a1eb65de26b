"""The expected-failures file: units (op/dtype) known not to pass on npu,
each with a reason. One entry per line, `<op>/<dtype>: <reason>`; `#` starts
a comment line. `--update-expected` rewrites it from a run.

A reason starting with `may fail: ` marks a machine-dependent entry: the
unit's result depends on the CPU PyTorch's reference runs on (its kernels
differ by ISA, ATEN_CPU_CAPABILITY default/avx2/avx512, in the last ulp or
at special values), so it passes on some machines and fails on others. Both
are accepted (xfail or pass, never an unexpected pass), the reports name it,
and `--update-expected` keeps the entry whichever way it went."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from npu_emu.conformance.compare import first_line
from npu_emu.conformance.results import UnitResult

HEADER = """\
# Expected failures of the OpInfo conformance sweep on npu (npu-emu conformance).
# One entry per line: <op>/<dtype>: <reason>. A listed unit that fails is an
# expected failure; a listed unit that passes is an unexpected pass (the run
# fails until the entry is removed). Regenerate from a run, keeping the reasons
# already written, with: npu-emu conformance --update-expected [selection]
# (see docs/conformance.md). New entries get a categorised reason: the phase
# (forward or grad), then the exception or the comparison's first line.
# <op>/<dtype>: may fail: <reason> marks a machine-dependent entry, one that
# passes on some machines and fails on others (PyTorch's CPU reference differs
# by ISA): failing or passing are both accepted, the report lists it as
# "may fail", and --update-expected keeps it. Use it only for such units.
"""

# The reason prefix of a machine-dependent entry.
MAY_FAIL = "may fail: "


def may_fail(reason: str | None) -> bool:
    """Whether an entry's reason marks it machine-dependent (pass or fail accepted)."""
    return reason is not None and reason.startswith(MAY_FAIL)


def read_entries(path: Path, form: str, valid_key: Callable[[str], bool],
                 check: Callable[[str, str], str | None] = lambda key, reason: None,
                 canonical: Callable[[str], str] = lambda key: key, twice: str = "") -> dict[str, str]:
    """{key: reason} of an expected-failures file (this one and the upstream
    runs' one share its form): `<key>: <reason>` lines, `#` comments, blank
    lines. A missing file is empty. A line whose key fails `valid_key`, or for
    which `check(key, reason)` returns a complaint, or a key listed twice
    (after `canonical`), is a ValueError naming the file and line."""
    if not path.exists():
        return {}
    entries: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, reason = line.partition(": ")
        where = f"{path}:{number}"
        if not sep or " " in key or not valid_key(key) or not reason.strip():
            raise ValueError(f"{where}: expected '{form}', got {raw!r}")
        complaint = check(key, reason.strip())
        if complaint:
            raise ValueError(f"{where}: {key}: {complaint}")
        key = canonical(key)
        if key in entries:
            raise ValueError(f"{where}: {key} is listed twice{twice}")
        entries[key] = reason.strip()
    return entries


def write_entries(path: Path, header: str, entries: dict[str, str]) -> None:
    lines = [f"{key}: {entries[key]}" for key in sorted(entries)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + "\n" + "\n".join(lines) + ("\n" if lines else ""))


def load(path: Path) -> dict[str, str]:
    return read_entries(
        path, "<op>/<dtype>: <reason>", lambda key: "/" in key,
        check=lambda key, reason: f"'{MAY_FAIL.strip()}' needs a reason after it" if reason == MAY_FAIL.strip() else None)


def save(path: Path, entries: dict[str, str]) -> None:
    write_entries(path, HEADER, entries)


def categorise(result: UnitResult) -> str:
    """A reason for a new entry, stable across runs: what kind of failure, where."""
    ff = result.first_failure
    if ff is None:
        return f"{result.status}"
    kind = "mismatch" if ff.status == "failed" else "error"
    return f"{kind} ({ff.phase}): {first_line(ff.message, 160)}"


def updated(entries: dict[str, str], results: Iterable[UnitResult]) -> dict[str, str]:
    """The entries after a run: failing units listed (their old reason kept),
    passing units removed; skipped and not-run units keep what they had, and
    so do machine-dependent (`may fail`) units, whichever way they went here."""
    new = dict(entries)
    for result in results:
        if may_fail(entries.get(result.key)):
            continue
        if result.status in ("failed", "errored"):
            new[result.key] = entries.get(result.key) or categorise(result)
        elif result.status == "passed":
            new.pop(result.key, None)
    return new
