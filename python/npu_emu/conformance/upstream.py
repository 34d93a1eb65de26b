"""`npu-emu conformance upstream`: PyTorch's own test files, from a source
checkout of the matching tag, run on npu through PyTorch's PrivateUse1
device-type test base, then converted to this runner's report format.

Each file runs in its own pytest process (so a crash loses one file, and -j
runs files in parallel) with:
- PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1: instantiate_device_type_tests
  makes only the PrivateUse1 (npu) variants, no CPU ones;
- the plugin npu_emu.conformance.pytest_plugin: activates the backend before
  the test module is imported and applies the skip list;
- --junitxml, which is then read back into unit results (one per test; the
  dtype is parsed from the test name's suffix).

--file-timeout bounds the time a file's tests run, from the end of its
collection to the written report (the plugin reports both through a pipe),
so neither a slow import nor a slow exit on a loaded machine eats the budget
of the tests; collection has its own bound, --collect-timeout. At either,
pytest gets SIGINT and still writes the report of the tests it finished."""

from __future__ import annotations

import argparse
import os
import select
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import torch

from npu_emu.conformance.pytest_plugin import COLLECTED, FINISHED, PROGRESS_FD_ENV, SKIPS_ENV, TEST_DIR_ENV
from npu_emu.conformance.results import FirstFailure, UnitResult

DEFAULT_FILES = ("test_ops.py", "test_torch.py", "test_nn.py", "test_autograd.py", "test_binary_ufuncs.py",
                 "test_unary_ufuncs.py", "test_reductions.py")
# Seconds pytest gets, after SIGINT at --file-timeout, to write its report.
_INTERRUPT_GRACE_S = 60
# Default bound of one file's collection (importing torch, PyTorch's test
# utilities and OpInfo database, generating the tests): minutes for
# test_ops.py on a loaded 2-core machine.
DEFAULT_COLLECT_TIMEOUT_S = 900.0
# Every dtype name PyTorch's device-type tests append to a test's name.
_DTYPE_NAMES = sorted({str(d).removeprefix("torch.") for d in vars(torch).values() if isinstance(d, torch.dtype)},
                      key=len, reverse=True)


def _parser() -> argparse.ArgumentParser:
    from npu_emu.conformance.cli import _common

    p = argparse.ArgumentParser(
        prog="npu-emu conformance upstream",
        description="Run PyTorch's own test files on npu from a source checkout of the matching tag "
                    "(nothing is downloaded).")
    p.add_argument("--pytorch-src", type=Path, required=True,
                   help="a PyTorch source checkout (its test/ directory holds the files)")
    p.add_argument("--files", nargs="+", default=list(DEFAULT_FILES),
                   help=f"test files relative to test/ (default: {' '.join(DEFAULT_FILES)})")
    p.add_argument("--skips", type=Path, default=None,
                   help="skip list (default conformance/upstream_skips.txt)")
    p.add_argument("-k", dest="keyword", help="pytest -k expression, to run a subset")
    p.add_argument("-j", "--jobs", type=int, default=1, help="files run in parallel (default 1)")
    p.add_argument("--file-timeout", type=float, default=None,
                   help="seconds one file's tests may run, counted from the end of its collection; then pytest "
                        "is interrupted: the tests it finished are reported, the file gets one errored unit")
    p.add_argument("--collect-timeout", type=float, default=DEFAULT_COLLECT_TIMEOUT_S,
                   help=f"seconds one file's collection may take (default {DEFAULT_COLLECT_TIMEOUT_S:g})")
    _common(p)
    return p


def split_dtype(name: str) -> tuple[str, str]:
    """('test_add_privateuse1', 'float32') from 'test_add_privateuse1_float32'."""
    for dtype in _DTYPE_NAMES:
        if name.endswith("_" + dtype):
            return name[: -len(dtype) - 1], dtype
    return name, ""


# PyTorch's TestCase appends a reproduction hint to every failure message.
_REPRO_HINT = "To execute this test, run the following"


def failure_message(element: ET.Element) -> str:
    """The exception of a junit <failure>/<error>, without PyTorch's repro hint;
    for a generic message ("collection failure") the traceback's last line too."""
    message = (element.get("message") or "").split(_REPRO_HINT)[0].strip()
    text = (element.text or "").split(_REPRO_HINT)[0]
    last = next((line.strip().removeprefix("E").strip() for line in reversed(text.splitlines()) if line.strip()), "")
    if last and ":" not in message and last not in message:
        message = f"{message}: {last}" if message else last
    return message[:2000]


def read_junit(path: Path, file: str) -> list[UnitResult]:
    results = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if not case.get("name") and not case.get("classname") and not len(case):
            continue  # pytest's placeholder for the test a SIGINT interrupted: nothing ran to completion
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        base, dtype = split_dtype(case.get("name", ""))
        # A module that fails to import is one testcase without a class.
        op = f"{file}::{cls}::{base}" if cls else f"{file}::(collection)"
        result = UnitResult(op, dtype, tolerance_source="n/a")
        result.duration_s = float(case.get("time") or 0.0)
        failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
        bad = error if error is not None else failure
        if skipped is not None:
            result.samples["skipped"] = 1
            result.skip_reason = skipped.get("message", "") or "skipped"
        elif bad is not None:
            status = "errored" if bad is error else "failed"
            result.samples[status] = 1
            result.first_failure = FirstFailure(0, status, "forward", "", failure_message(bad))
        else:
            result.samples["passed"] = 1
        result.finish()
        result.native = None  # not measured for upstream tests
        result.apply_expectation(None)
        results.append(result)
    return results


def _file_error(file: str, message: str) -> UnitResult:
    result = UnitResult(f"{file}", "", tolerance_source="n/a")
    result.samples["errored"] = 1
    result.first_failure = FirstFailure(0, "errored", "forward", "", message)
    result.finish()
    result.apply_expectation(None)
    return result


def _run_file(src: Path, file: str, args: argparse.Namespace, skips: Path, out: Path) -> list[UnitResult]:
    test_dir = src / "test"
    junit = out / "upstream" / (file.replace("/", "__") + ".xml")
    junit.parent.mkdir(parents=True, exist_ok=True)
    log = out / "upstream" / (file.replace("/", "__") + ".log")
    command = [sys.executable, "-m", "pytest", file, "-p", "npu_emu.conformance.pytest_plugin",
               "-p", "no:cacheprovider", f"--junitxml={junit}", "-q", "-rN"]
    if args.keyword:
        command += ["-k", args.keyword]
    env = dict(os.environ)
    env.update({"PYTORCH_TESTING_DEVICE_ONLY_FOR": "privateuse1", "NPU_EMU_FALLBACK": "allow",
                SKIPS_ENV: str(skips.resolve()), TEST_DIR_ENV: str(test_dir.resolve())})
    env.pop("NPU", None)  # the plugin activates the emulator itself
    if junit.exists():
        junit.unlink()
    progress_r, progress_w = os.pipe()
    env[PROGRESS_FD_ENV] = str(progress_w)
    with open(log, "w") as log_file:
        try:
            proc = subprocess.Popen(command, cwd=test_dir, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                    pass_fds=(progress_w,))
        finally:
            os.close(progress_w)
        try:
            timed_out = _wait(proc, progress_r, args.collect_timeout, args.file_timeout)
        finally:
            os.close(progress_r)
    if not junit.exists():  # crashed, or killed before pytest wrote its report
        reason = f"interrupted at {timed_out}" if timed_out else f"exit code {proc.returncode} (crash?)"
        return [_file_error(file, f"pytest produced no report ({reason}); see {log}")]
    results = read_junit(junit, file)
    if timed_out:
        results.append(_file_error(file, f"{timed_out}: interrupted, the tests after the last reported one did "
                                         f"not run; see {log}"))
    return results


def _wait(proc: subprocess.Popen, progress: int, collect_timeout: float | None, file_timeout: float | None) -> str:
    """Waits for pytest, following the plugin's progress bytes: collection
    within collect_timeout, then the tests (until the report is written)
    within file_timeout; the exit that follows is not timed against them.
    End of file on the pipe means pytest exited. Returns "" if pytest finished
    by itself, else which limit interrupted it."""
    seen = b""
    for marker, limit, name in ((COLLECTED, collect_timeout, "--collect-timeout"), (FINISHED, file_timeout,
                                                                                   "--file-timeout")):
        deadline = None if limit is None else time.monotonic() + limit
        while marker not in seen and FINISHED not in seen:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([progress], [], [], left)
            if not ready:
                _interrupt(proc)
                return f"{name} {limit:g} s" + (" (collection did not finish)" if marker == COLLECTED else "")
            chunk = os.read(progress, 16)
            if not chunk:  # pytest exited
                proc.wait()
                return ""
            seen += chunk
    try:  # the report is written; an exit that hangs must not hang the run
        proc.wait(timeout=_INTERRUPT_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return ""


def _interrupt(proc: subprocess.Popen) -> None:
    # SIGINT, not SIGKILL: pytest stops at the running test and still writes
    # the junit report of the tests it finished.
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=_INTERRUPT_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_upstream(argv: Sequence[str]) -> int:
    from npu_emu.conformance.cli import REPORT_JSON, REPORT_JUNIT, REPORT_MD, _finish, _write_reports, data_dir

    args = _parser().parse_args(argv)
    src = args.pytorch_src
    problems = [f"--pytorch-src: {src / 'test'} is not a directory"] if not (src / "test").is_dir() else []
    problems += [f"--files: {src / 'test' / f} not found" for f in args.files if not (src / "test" / f).is_file()]
    skips = args.skips or data_dir() / "upstream_skips.txt"
    if not skips.is_file():
        problems.append(f"--skips: {skips} not found")
    if args.jobs < 1:
        problems.append(f"-j/--jobs must be >= 1, got {args.jobs}")
    for name, value in (("--file-timeout", args.file_timeout), ("--collect-timeout", args.collect_timeout)):
        if value is not None and value <= 0:
            problems.append(f"{name} must be > 0 seconds, got {value:g}")
    if problems:
        for p in problems:
            print(f"npu-emu conformance upstream: {p}", file=sys.stderr)
        return 2
    started = time.monotonic()
    results: list[UnitResult] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for file, file_results in zip(args.files, pool.map(
                lambda f: _run_file(src, f, args, skips, args.output_dir), args.files)):
            results += file_results
            counts = {s: sum(r.status == s for r in file_results) for s in ("passed", "failed", "errored",
                                                                             "skipped")}
            print(f"{file}: " + ", ".join(f"{v} {k}" for k, v in counts.items()), file=sys.stderr, flush=True)
    wall = time.monotonic() - started
    selection = {"pytorch_src": str(src), "files": " ".join(args.files), "k": args.keyword or "none",
                 "skips": str(skips), "jobs": args.jobs}
    command = "npu-emu conformance upstream " + shlex.join(argv)
    _write_reports("upstream", results, args.output_dir, wall, command, selection, args.docs)
    print(f"reports: {args.output_dir}/{{{REPORT_JSON},{REPORT_JUNIT},{REPORT_MD}}}", file=sys.stderr)
    return _finish(results, wall)
