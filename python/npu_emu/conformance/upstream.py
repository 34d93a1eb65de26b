"""`npu-emu conformance upstream`: PyTorch's own test files, from a source
checkout of the matching tag, run on npu through PyTorch's PrivateUse1
device-type test base, then converted to this runner's report format.

Each file runs in its own pytest process (so a crash loses one file, and -j
runs files in parallel) with:
- PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1: instantiate_device_type_tests
  makes only the PrivateUse1 (npu) variants, no CPU ones (`--device cpu`:
  only the CPU variants of the same tests, the reference run; the backend
  stays active, as test files adapted by torch_npu import it);
- the plugin npu_emu.conformance.pytest_plugin: activates the backend before
  the test module is imported, applies the skip list, and records every
  test's outcome as pytest classifies it, and pytest's own totals, which the
  units are built from (one per test, the dtype parsed from the name's
  suffix);
- then the upstream expected-failures file (upstream_expected.py) decides
  which failures are expected, and the reports are checked against pytest's
  own outcomes (reports/agreement.py).

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
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import torch

from npu_emu.conformance import upstream_expected
from npu_emu.conformance.pytest_plugin import (COLLECTED, FINISHED, OUTCOMES_ENV, PROGRESS_FD_ENV, SHARD_ENV,
                                               SKIPS_ENV, TEST_DIR_ENV, canonical_id)
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
    p.add_argument("--shard", metavar="I/N",
                   help="run the I-th of N disjoint parts of each file's tests (1-based; a test's part is a hash "
                        "of its id without the device, so npu and CPU runs get the same tests), e.g. one CI "
                        "job per part")
    p.add_argument("--file-timeout", type=float, default=None,
                   help="seconds one file's tests may run, counted from the end of its collection; then pytest "
                        "is interrupted: the tests it finished are reported, the file gets one errored unit")
    p.add_argument("--collect-timeout", type=float, default=DEFAULT_COLLECT_TIMEOUT_S,
                   help=f"seconds one file's collection may take (default {DEFAULT_COLLECT_TIMEOUT_S:g})")
    p.add_argument("--device", choices=("npu", "cpu"), default="npu",
                   help="run the npu variants of the tests (default) or their CPU variants (the reference run: "
                        "no expected-failures file, exit code 0 unless the reports disagree with pytest)")
    p.add_argument("--expected", type=Path, default=None,
                   help=f"expected-failures file (default conformance/{upstream_expected.FILE_NAME})")
    p.add_argument("--update-expected", action="store_true",
                   help="rewrite the expected-failures file from this run (existing causes kept)")
    p.add_argument("--report-only", action="store_true",
                   help="run nothing: rebuild the reports (and, with --update-expected, the expected-failures "
                        "file) from the logs an earlier run left in --output-dir")
    p.add_argument("--merge", nargs="+", type=Path, default=None, metavar="DIR",
                   help="run nothing: merge the logs that runs of parts of the selection (--shard jobs, files "
                        "run separately) left in these --output-dirs into --output-dir, then build the reports "
                        "from them as --report-only does")
    p.add_argument("--cpu-report", type=Path, default=None,
                   help="report.json of a --device cpu run of the same selection: the summary then compares "
                        "pass counts per file, and --update-expected marks the tests CPU fails too")
    _common(p)
    return p


def split_dtype(name: str) -> tuple[str, str]:
    """('test_add_privateuse1', 'float32') from 'test_add_privateuse1_float32'."""
    for dtype in _DTYPE_NAMES:
        if name.endswith("_" + dtype):
            return name[: -len(dtype) - 1], dtype
    return name, ""


# pytest's categories, worst first: a test reported twice (a call that
# failed, then a teardown error) is one unit with the worse.
_SEVERITY = ("error", "failed", "xpassed", "xfailed", "skipped", "passed")
PYTEST_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
_STATUS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "xfailed": "failed", "error": "errored",
           "skipped": "skipped"}


def junit_names(tid: str) -> tuple[str, str]:
    """pytest's junit classname and name of a test id (`test_ops.py::TestX::test_y`
    -> `test_ops.TestX`, `test_y`), as pytest's own --junitxml writes them."""
    path, bracket, params = tid.partition("[")
    names = path.split("::")
    names[0] = names[0].removesuffix(".py").replace("/", ".")
    names[-1] += bracket + params
    return ".".join(names[:-1]) or names[0], names[-1] if len(names) > 1 else "(collection)"


def read_records(path: Path) -> tuple[list[dict], dict[str, int] | None]:
    """The plugin's records of one file (one per pytest report) and pytest's
    own totals (None if pytest did not get to print them)."""
    records, totals = [], None
    if not path.exists():
        return records, totals
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash
        if "pytest_totals" in entry:
            totals = entry["pytest_totals"]
        elif "started" not in entry:
            records.append(entry)
    return records, totals


def last_unfinished(path: Path) -> str:
    """The test that started last and has no call or teardown report: the one
    a crash or an interrupt hit ("" if none)."""
    last, done = "", set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "started" in entry:
                last = entry["started"]
            elif entry.get("when") in ("call", "teardown") or entry.get("outcome") in ("error", "skipped"):
                done.add(entry.get("id"))
    return "" if last in done else last


def _is_subtest(record: dict) -> bool:
    return bool(record.get("subtest")) or record["outcome"].startswith("subtests ")


def merged_outcome(records: Sequence[dict]) -> dict:
    """The record that decides one test's unit: the worst of its reports,
    leaving out its subTests' own (pytest fails the test itself when one of
    them fails)."""
    own = [r for r in records if not _is_subtest(r)] or records
    return min(own, key=lambda r: _severity(r["outcome"].removeprefix("subtests ")))


def _severity(outcome: str) -> int:
    # A category some other plugin invented counts as an error (see unit_from_records).
    return _SEVERITY.index(outcome) if outcome in _SEVERITY else 0


def unit_from_records(tid: str, records: Sequence[dict]) -> UnitResult:
    decisive = merged_outcome(records)
    outcome = decisive["outcome"].removeprefix("subtests ")
    if outcome not in _STATUS:  # not one of pytest's own categories: never silently a pass
        decisive = {**decisive, "message": f"unknown pytest outcome {outcome!r}: {decisive.get('message', '')}"}
        outcome = "error"
    classname, name = junit_names(tid)
    collection = decisive.get("when") == "collect"
    if collection:
        op, dtype = f"{tid}::(collection)", ""
    else:
        base, dtype = split_dtype(name)
        op = f"{tid.rsplit('::', 1)[0]}::{base}"
    result = UnitResult(op, dtype, tolerance_source="n/a", classname=classname, name=name,
                        test_id=canonical_id(op if collection else tid), pytest_outcome=outcome,
                        details=decisive.get("details", ""))
    result.duration_s = round(sum(r.get("duration", 0.0) for r in records), 4)
    status = _STATUS[outcome]
    message = decisive.get("message", "")
    if outcome == "xfailed":  # pytest keeps the reason of the mark, not the exception
        message = decisive.get("xfail_reason", "") or "expected failure"
    result.samples[status] = 1
    if status == "skipped":
        result.skip_reason = message or "skipped"
    elif status in ("failed", "errored"):
        result.first_failure = FirstFailure(0, status, "forward", decisive.get("when", ""), message)
    result.finish()
    result.native = None  # not measured for upstream tests
    return result


def read_outcomes(path: Path) -> tuple[list[UnitResult], dict[str, int] | None]:
    """One unit per test of a file's records, in the order pytest ran them."""
    records, totals = read_records(path)
    by_test: dict[str, list[dict]] = {}
    for record in records:
        by_test.setdefault(record["id"], []).append(record)
    return [unit_from_records(tid, rs) for tid, rs in by_test.items()], totals


def _file_error(file: str, message: str) -> UnitResult:
    """A unit for what happened to a whole file (crash, time limit)."""
    classname, _ = junit_names(file)
    result = UnitResult(f"{file}", "", tolerance_source="n/a", classname=classname, name="(file)", test_id=file)
    result.samples["errored"] = 1
    result.first_failure = FirstFailure(0, "errored", "forward", "", message)
    result.finish()
    return result


def outcomes_path(out: Path, file: str) -> Path:
    return out / "upstream" / (file.replace("/", "__") + ".outcomes.jsonl")


def runner_path(out: Path, file: str) -> Path:
    """What the runner saw of a file's pytest process (a time limit, a crash)."""
    return out / "upstream" / (file.replace("/", "__") + ".runner.json")


def _run_file(src: Path, file: str, args: argparse.Namespace, skips: Path, out: Path) -> list[UnitResult]:
    test_dir = src / "test"
    outcomes = outcomes_path(out, file)
    outcomes.parent.mkdir(parents=True, exist_ok=True)
    log = out / "upstream" / (file.replace("/", "__") + ".log")
    command = [sys.executable, "-m", "pytest", file, "-p", "npu_emu.conformance.pytest_plugin",
               "-p", "no:cacheprovider", "-q", "-rN"]
    if args.keyword:
        command += ["-k", args.keyword]
    env = dict(os.environ)
    env.pop(SHARD_ENV, None)
    if args.shard:
        env[SHARD_ENV] = args.shard
    env.update({"PYTORCH_TESTING_DEVICE_ONLY_FOR": "privateuse1" if args.device == "npu" else "cpu",
                "NPU_EMU_FALLBACK": "allow", SKIPS_ENV: str(skips.resolve()), TEST_DIR_ENV: str(test_dir.resolve()),
                OUTCOMES_ENV: str(outcomes.resolve())})
    env.pop("NPU", None)  # the plugin activates the emulator itself
    if outcomes.exists():
        outcomes.unlink()
    progress_r, progress_w = os.pipe()
    env[PROGRESS_FD_ENV] = str(progress_w)
    started = time.monotonic()
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
    results, totals = read_outcomes(outcomes)
    problem = ""
    hit = last_unfinished(outcomes)
    during = f" during {hit}" if hit else ""
    if timed_out:
        problem = f"{timed_out}: interrupted{during}, the tests after it did not run; see {log}"
    elif totals is None:  # crashed, or killed before pytest printed its summary
        problem = (f"pytest did not finish (exit code {proc.returncode}, a crash?){during}: the tests after it "
                   f"did not run; see {log}")
    runner_path(out, file).write_text(json.dumps({"file": file, "problem": problem,
                                                  "wall_s": round(time.monotonic() - started, 1)}) + "\n")
    return results + ([_file_error(file, problem)] if problem else [])


def merge_logs(dirs: Sequence[Path], files: Sequence[str], out: Path) -> None:
    """Writes into out/upstream/ each file's logs from the runs in `dirs`
    that ran it: the plugin's records one after the other, pytest's totals
    summed (none if some run has none: a crash or interrupt), the runner's
    problems joined and its wall times added."""
    for file in files:
        parts = [d for d in dirs if outcomes_path(d, file).exists()]
        if not parts:
            continue
        lines: list[str] = []
        totals: dict[str, int] | None = {}
        problems: list[str] = []
        wall = 0.0
        for d in parts:
            _, part_totals = read_records(outcomes_path(d, file))
            # Records and start marks in their order (a crash's last start stays last of its part).
            lines += [line for line in outcomes_path(d, file).read_text(encoding="utf-8").splitlines()
                      if line.strip() and "pytest_totals" not in line]
            if totals is not None and part_totals is not None:
                for k, v in part_totals.items():
                    totals[k] = totals.get(k, 0) + v
            else:
                totals = None
            state = json.loads(runner_path(d, file).read_text()) if runner_path(d, file).exists() else {}
            if state.get("problem"):
                problems.append(state["problem"])
            wall += state.get("wall_s") or 0.0
        if totals is not None:
            lines.append(json.dumps({"pytest_totals": totals}))
        target = outcomes_path(out, file)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        runner_path(out, file).write_text(json.dumps({"file": file, "problem": "; ".join(problems),
                                                      "wall_s": round(wall, 1)}) + "\n")


def _read_file(file: str, out: Path) -> list[UnitResult]:
    """--report-only: a file's units from the logs of an earlier run."""
    results, _ = read_outcomes(outcomes_path(out, file))
    state = runner_path(out, file)
    problem = json.loads(state.read_text())["problem"] if state.exists() else "not run (no logs of it)"
    return results + ([_file_error(file, problem)] if problem else [])


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


def _counts(results: Sequence[UnitResult]) -> dict[str, int]:
    """Units by pytest's outcome (runner-made units, a crash or a time limit, as `error`)."""
    counts = {c: 0 for c in PYTEST_OUTCOMES}
    for r in results:
        counts[r.pytest_outcome or "error"] += 1
    return counts


def _file_wall(out: Path, file: str) -> float | None:
    """Seconds the file's pytest process took (start to exit), if the runner recorded it."""
    state = runner_path(out, file)
    return json.loads(state.read_text()).get("wall_s") if state.exists() else None


def write_reports(results: list[UnitResult], args: argparse.Namespace, wall: float, command: str,
                  selection: dict, per_file: dict[str, list[UnitResult]]) -> dict:
    from npu_emu.conformance.cli import REPORT_JSON, REPORT_JUNIT, REPORT_MD
    from npu_emu.conformance.reports import json_report, upstream_junit, upstream_markdown

    out = args.output_dir
    out.mkdir(parents=True, exist_ok=True)
    report = json_report.build("upstream", results, wall_time_s=wall, command=command, selection=selection)
    report["device"] = args.device
    report["totals"]["pytest_outcomes"] = _counts(results)
    report["files"] = {f: {**_counts(rs), "time_s": round(sum(r.duration_s for r in rs), 1),
                           "wall_s": _file_wall(out, f)} for f, rs in per_file.items()}
    if args.cpu_report is not None:
        from npu_emu.conformance.reports import json_report as jr
        from npu_emu.conformance.cpu_reference import compare

        _, cpu_units = jr.read(args.cpu_report)
        report["cpu_reference"] = compare(results, cpu_units, str(args.cpu_report))
    json_report.write(out / REPORT_JSON, report)
    upstream_junit.write(out / REPORT_JUNIT, upstream_junit.build(results, wall))
    text = upstream_markdown.render(report, results)
    (out / REPORT_MD).write_text(text)
    if args.docs:
        args.docs.parent.mkdir(parents=True, exist_ok=True)
        args.docs.write_text(text)
    return report


def run_upstream(argv: Sequence[str]) -> int:
    from npu_emu.conformance.cli import REPORT_JSON, REPORT_JUNIT, REPORT_MD, _finish, data_dir
    from npu_emu.conformance.reports import agreement

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
    if args.shard is not None:
        from npu_emu.conformance.plan import parse_shard

        try:
            parse_shard(args.shard)
        except ValueError as exc:
            problems.append(str(exc))
    problems += [f"--merge: {d} is not a directory" for d in args.merge or () if not d.is_dir()]
    if args.cpu_report is not None and not args.cpu_report.is_file():
        problems.append(f"--cpu-report: {args.cpu_report} not found")
    if args.device == "cpu" and args.update_expected:
        problems.append("--update-expected: the expected-failures file is for npu runs, not --device cpu")
    expected_path = args.expected or data_dir() / upstream_expected.FILE_NAME
    try:
        entries = upstream_expected.load(expected_path) if args.device == "npu" else {}
    except ValueError as exc:
        problems.append(str(exc))
        entries = {}
    if problems:
        for p in problems:
            print(f"npu-emu conformance upstream: {p}", file=sys.stderr)
        return 2
    if args.merge:
        merge_logs(args.merge, args.files, args.output_dir)
        args.report_only = True
    started = time.monotonic()
    results: list[UnitResult] = []
    per_file: dict[str, list[UnitResult]] = {}
    def one_file(f: str) -> list[UnitResult]:
        return _read_file(f, args.output_dir) if args.report_only else _run_file(src, f, args, skips,
                                                                                 args.output_dir)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for file, file_results in zip(args.files, pool.map(one_file, args.files)):
            for r in file_results:
                upstream_expected.apply(r, entries)
            results += file_results
            per_file[file] = file_results
            counts = {k: v for k, v in _counts(file_results).items() if v}
            print(f"{file}: " + (", ".join(f"{v} {k}" for k, v in counts.items()) or "no tests"),
                  file=sys.stderr, flush=True)
    wall = time.monotonic() - started
    if args.update_expected:
        cpu_failing = None
        if args.cpu_report is not None:
            from npu_emu.conformance.cpu_reference import failing_ids
            from npu_emu.conformance.reports import json_report

            cpu_failing = failing_ids(json_report.read(args.cpu_report)[1])
        new = upstream_expected.updated(entries, results, cpu_failing)
        upstream_expected.save(expected_path, new)
        print(f"{expected_path}: {len(set(new) - set(entries))} entries added, "
              f"{len(set(entries) - set(new))} removed, {len(new)} total", file=sys.stderr)
        for r in results:
            upstream_expected.apply(r, new)
    selection = {"pytorch_src": str(src), "files": " ".join(args.files), "k": args.keyword or "none",
                 "shard": args.shard or "none",
                 "device": args.device, "skips": str(skips), "expected": str(expected_path) if entries or
                 args.device == "npu" else "none", "jobs": args.jobs}
    command = "npu-emu conformance upstream " + shlex.join(argv)
    write_reports(results, args, wall, command, selection, per_file)
    print(f"reports: {args.output_dir}/{{{REPORT_JSON},{REPORT_JUNIT},{REPORT_MD}}}", file=sys.stderr)
    disagreements = agreement.check(args.output_dir)
    for problem in disagreements[:50]:
        print(f"  report disagrees with pytest: {problem}", file=sys.stderr)
    if disagreements:
        print(f"npu-emu conformance upstream: the reports disagree with pytest's own outcomes "
              f"({len(disagreements)} problems)", file=sys.stderr)
        return 3
    code = _finish(results, wall)
    return 0 if args.device == "cpu" else code
