"""pytest plugin for running PyTorch's own test files on npu (loaded with
`-p npu_emu.conformance.pytest_plugin` by `npu-emu conformance upstream`).

It activates the npu backend before any test module imports
torch.testing._internal.common_device_type, whose import-time list of device
test bases then includes PrivateUse1TestBase (it checks that the PrivateUse1
backend has a registered device module); PYTORCH_TESTING_DEVICE_ONLY_FOR,
set by the runner, leaves only that base. It also marks the tests the
project's skip list names as skipped, with the list's reason, and tells the
runner when collection is done and when the reports are written (a byte on
the pipe PROGRESS_FD_ENV names): the runner's --file-timeout counts between
the two.

It records every test's outcome as pytest itself classifies it (the
category of pytest_report_teststatus, the one pytest's own summary line
counts: passed, failed, error, skipped, xfailed, xpassed) in the JSON-lines
file OUTCOMES_ENV names, one line per report as it happens (so an
interrupted run keeps the tests it finished), and at the end pytest's own
totals (the terminal reporter's counts) in one last line: the runner builds
its reports from these and checks that they agree."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import signal
import zlib
from pathlib import Path
from typing import Any

import pytest

import npu_emu  # noqa: F401  (activates the npu backend)

SKIPS_ENV = "NPU_EMU_CONFORMANCE_SKIPS"
TEST_DIR_ENV = "NPU_EMU_CONFORMANCE_TEST_DIR"
# The runner's pipe: this plugin writes COLLECTED when collection is done and
# FINISHED when the session's reports are written.
PROGRESS_FD_ENV = "NPU_EMU_CONFORMANCE_PROGRESS_FD"
COLLECTED, FINISHED = b"c", b"f"
# "I/N": keep the tests of the I-th of N parts (1-based; a test's part is a
# hash of its device-neutral id), so N CI jobs split a big file into
# disjoint parts, the same tests on npu and on CPU.
SHARD_ENV = "NPU_EMU_CONFORMANCE_SHARD"
# The JSON-lines file this plugin writes pytest's outcomes to.
OUTCOMES_ENV = "NPU_EMU_CONFORMANCE_OUTCOMES"
# Of a failure's traceback, the last characters kept (the junit body).
_DETAILS_CHARS = 6000
# PyTorch's TestCase appends a reproduction hint to every failure message.
REPRO_HINT = "To execute this test, run the following"


def load_skips(path: Path) -> list[tuple[str, str]]:
    """(pattern, reason) pairs from `<test id glob>: <reason>` lines; `#` comments."""
    skips = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition(": ")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{number}: expected '<test id glob>: <reason>', got {raw!r}")
        skips.append((pattern.strip(), reason.strip()))
    return skips


def test_id(nodeid: str, test_dir: Path | None, rootdir: Path) -> str:
    """The node id with its file relative to the checkout's test/ directory
    (`test_ops.py::TestCommonPRIVATEUSE1::test_x_privateuse1_float32`), whatever
    pytest chose as rootdir."""
    path, sep, rest = nodeid.partition("::")
    if test_dir is not None:
        try:
            path = str((rootdir / path).resolve().relative_to(test_dir.resolve()))
        except ValueError:
            pass
    return f"{path}{sep}{rest}"


# PyTorch names a device-type test class <generic class><DEVICE TYPE>, the
# device type being the PrivateUse1 base's: "privateuse1" until a test class
# of the process has run its setUpClass, "npu" after it. So the same test is
# TestFooPRIVATEUSE1 in one run and TestFooNPU in another (which file comes
# first in the process decides); the canonical id uses NPU.
_CLASS_SUFFIX = re.compile(r"(?<=\w)PRIVATEUSE1(?=::|$)")
_NAME_DEVICE = re.compile(r"_privateuse1(?=_|$|\[)")


def canonical_id(tid: str) -> str:
    """The test id with the PrivateUse1 device named npu: the same string
    whichever class name PyTorch chose (`...::TestFooPRIVATEUSE1::test_x_privateuse1`
    and `...::TestFooNPU::test_x_npu` both give the second)."""
    parts = tid.split("::")
    if len(parts) >= 3:
        parts[-2] = _CLASS_SUFFIX.sub("NPU", parts[-2])
        parts[-1] = _NAME_DEVICE.sub("_npu", parts[-1])
    return "::".join(parts)


def shard_of(tid: str, count: int) -> int:
    """The 0-based shard of a test: a hash of its id without the device
    (class suffix and test-name token), so that a test lands in the same
    shard whichever device variant it is, and a test added elsewhere in the
    file moves no other test."""
    parts = tid.split("::")
    if len(parts) >= 3:
        parts[-2] = re.sub(r"(?<=\w)(?:PRIVATEUSE1|NPU|CPU)$", "", parts[-2])
        parts[-1] = re.sub(r"_(?:privateuse1|npu|cpu)(?=_|$|\[)", "", parts[-1])
    return zlib.crc32("::".join(parts).encode()) % count


def _shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    index, count = (int(x) for x in os.environ[SHARD_ENV].split("/"))
    test_dir = Path(os.environ[TEST_DIR_ENV]) if os.environ.get(TEST_DIR_ENV) else None
    mine = [shard_of(test_id(item.nodeid, test_dir, Path(str(config.rootpath))), count) == index - 1
            for item in items]
    config.hook.pytest_deselected(items=[item for item, keep in zip(items, mine) if not keep])
    items[:] = [item for item, keep in zip(items, mine) if keep]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(SHARD_ENV):
        _shard(config, items)
    skips_path = os.environ.get(SKIPS_ENV)
    if not skips_path:
        return
    skips = load_skips(Path(skips_path))
    test_dir = Path(os.environ[TEST_DIR_ENV]) if os.environ.get(TEST_DIR_ENV) else None
    for item in items:
        tid = test_id(item.nodeid, test_dir, Path(str(config.rootpath)))
        ids = (tid, canonical_id(tid))
        for pattern, reason in skips:
            if any(fnmatch.fnmatchcase(t, canonical_id(pattern)) or fnmatch.fnmatchcase(t, pattern) for t in ids):
                item.add_marker(pytest.mark.skip(reason=f"npu-emu skip list: {reason}"))
                break


_outcomes_path = os.environ.get(OUTCOMES_ENV)
_outcomes_file = open(_outcomes_path, "a", encoding="utf-8") if _outcomes_path else None


def _record(entry: dict[str, Any]) -> None:
    if _outcomes_file is not None:
        _outcomes_file.write(json.dumps(entry) + "\n")
        _outcomes_file.flush()  # a SIGINT or a crash keeps what is written


def _crash_message(report: pytest.CollectReport | pytest.TestReport) -> str:
    """The exception of a failure (type: message, every line of it) without
    PyTorch's repro hint; a skip's reason."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(longrepr or "")
    if crash is None and report.failed:  # e.g. a collection error: the traceback's last E line names it
        lines = [ln[1:].strip() for ln in message.splitlines() if ln.startswith("E ")]
        message = "\n".join(lines) or message
    return message.split(REPRO_HINT)[0].rstrip()


def _details(report: pytest.CollectReport | pytest.TestReport) -> str:
    text = report.longreprtext.split(REPRO_HINT)[0].rstrip() if report.failed else ""
    if len(text) <= _DETAILS_CHARS:
        return text
    tail = text[-_DETAILS_CHARS:]
    return "...\n" + tail[tail.find("\n") + 1:]  # whole lines only


def _id(nodeid: str) -> str:
    test_dir = Path(os.environ[TEST_DIR_ENV]) if os.environ.get(TEST_DIR_ENV) else None
    return test_id(nodeid, test_dir, Path(str(_config.rootpath))) if _config is not None else nodeid


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _record({"id": _id(report.nodeid), "when": "collect", "outcome": "error",
                 "message": _crash_message(report), "details": _details(report), "duration": 0.0})


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    # So that a crash (the process gone mid-test) names the test it hit.
    _record({"started": _id(nodeid)})


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _config
    if config is None:
        return
    category = config.hook.pytest_report_teststatus(report=report, config=config)[0]
    if not category:  # a setup or teardown that passed: not an outcome
        return
    entry = {"id": _id(report.nodeid), "when": report.when, "outcome": category,
             "duration": round(report.duration, 4)}
    if category in ("failed", "error", "skipped"):
        entry["message"] = _crash_message(report)
    if category in ("failed", "error"):
        entry["details"] = _details(report)
    if hasattr(report, "wasxfail"):
        entry["xfail_reason"] = str(report.wasxfail)
    if type(report).__name__ == "SubtestReport":  # one subTest of the test (pytest >= 9 reports them)
        entry["subtest"] = True
    _record(entry)


_config: pytest.Config | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _config
    _config = config


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """pytest's own totals, the ones its last line prints, to check the runner's against."""
    counts: dict[str, int] = {}
    for category, reports in terminalreporter.stats.items():
        if category and category not in ("warnings", "deselected"):
            counts[category] = len([r for r in reports if getattr(r, "count_towards_summary", True)])
    _record({"pytest_totals": counts})


# Popped at import, so that no process this one starts writes to a
# descriptor number that is something else there.
_progress_fd = os.environ.pop(PROGRESS_FD_ENV, None)

if _progress_fd is not None:
    # Nor do they inherit it: the runner takes end of file as pytest's exit.
    os.set_inheritable(int(_progress_fd), False)
    # The runner interrupts pytest with SIGINT at its timeouts. A process
    # started with SIGINT ignored (any background job of a non-interactive
    # shell, and what it starts, inherits that) would never see it, and
    # Python installs its KeyboardInterrupt handler only where SIGINT is not
    # ignored: install it here.
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _progress(marker: bytes) -> None:
    if _progress_fd is not None:
        try:
            os.write(int(_progress_fd), marker)
        except OSError:  # the runner is gone (interrupted itself): nobody to tell
            pass


def pytest_collection_finish(session: pytest.Session) -> None:
    _progress(COLLECTED)


def pytest_unconfigure(config: pytest.Config) -> None:
    # After every pytest_sessionfinish, so the junit report is written.
    _progress(FINISHED)
