"""`npu-emu conformance`: the OpInfo sweep (default), `upstream` (PyTorch's
own test files) and `docs` (render docs/conformance.md from a report)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Sequence

from npu_emu.conformance import expected as expected_file
from npu_emu.conformance.progress import Progress
from npu_emu.conformance.reports import docs_page, json_report, junit_report, markdown_report
from npu_emu.conformance.reports.summary import unexpected
from npu_emu.conformance.results import UnitResult

DEFAULT_OUTPUT_DIR = Path("conformance-report")
DEFAULT_TIMEOUT_S = 60.0
REPORT_JSON, REPORT_JUNIT, REPORT_MD = "report.json", "junit.xml", "summary.md"


def data_dir() -> Path:
    """conformance/ at the root of the source tree this package runs from."""
    in_tree = Path(__file__).resolve().parents[3] / "conformance"
    return in_tree if in_tree.is_dir() else Path.cwd() / "conformance"


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR,
                        help=f"where the reports go (default {DEFAULT_OUTPUT_DIR}/)")
    parser.add_argument("--docs", type=Path, metavar="PATH",
                        help="also write the Markdown summary as a docs page (e.g. docs/conformance.md)")


def _sweep_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="npu-emu conformance",
        description="Run PyTorch's OpInfo database on npu and compare with CPU. "
                    "Other commands: `npu-emu conformance upstream --help`, `npu-emu conformance docs --help`.")
    p.add_argument("--ops", help="comma-separated OpInfo names (an op name selects its variants; globs allowed)")
    p.add_argument("--dtypes", default="all",
                   help="comma-separated dtypes among float32,float16,bfloat16,int64,int32,bool,complex64 "
                        "(default all)")
    p.add_argument("--shard", metavar="I/N", help="run the I-th of N disjoint shards (1-based)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                   help=f"per-sample timeout in seconds (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--expected", type=Path, default=None,
                   help="expected-failures file (default conformance/expected_failures.txt)")
    p.add_argument("--update-expected", action="store_true",
                   help="rewrite the expected-failures file from this run (existing reasons kept)")
    p.add_argument("--list", action="store_true", help="print the selected units and exit")
    _common(p)
    return p


def _write_reports(kind: str, results: list[UnitResult], out: Path, wall: float, command: str,
                   selection: dict, docs: Path | None) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    report = json_report.build(kind, results, wall_time_s=wall, command=command, selection=selection)
    json_report.write(out / REPORT_JSON, report)
    junit_report.write(out / REPORT_JUNIT, junit_report.build(kind, results, wall))
    (out / REPORT_MD).write_text(markdown_report.render(report, results))
    if docs:
        write_docs(docs, report, results)
    return report


def write_docs(path: Path, report: dict, results: list[UnitResult]) -> None:
    docs_page.write(path, report, results)


def _finish(results: list[UnitResult], wall: float) -> int:
    for r in results:
        if r.may_fail and r.status in ("passed", "failed", "errored"):
            print(f"  may fail (machine-dependent), {r.status} here: {r.key}", file=sys.stderr)
    bad = unexpected(results)
    for r in bad:
        what = "unexpected pass" if r.outcome == "xpass" else f"unexpected {r.status}"
        msg = r.first_failure.message.splitlines()[0][:160] if r.first_failure and r.first_failure.message else ""
        print(f"  {what}: {r.key}  {msg}", file=sys.stderr)
    print(f"wall time: {wall:.1f} s; {len(results)} units, {len(bad)} unexpected", file=sys.stderr)
    return 1 if bad else 0


def run_sweep(argv: Sequence[str]) -> int:
    args = _sweep_parser().parse_args(argv)
    from npu_emu.conformance.plan import load_op_db, parse_dtypes, parse_shard, plan_units, select_ops, shard_units
    from npu_emu.conformance.runner import Runner

    try:
        dtypes = parse_dtypes(args.dtypes)
        shard = parse_shard(args.shard)
        if args.jobs < 1:
            raise ValueError(f"-j/--jobs must be >= 1, got {args.jobs}")
        if args.timeout <= 0:
            raise ValueError(f"--timeout must be > 0 seconds, got {args.timeout}")
        expected_path = args.expected or data_dir() / "expected_failures.txt"
        expectations = expected_file.load(expected_path)
        ops = load_op_db()
        patterns = [p.strip() for p in args.ops.split(",") if p.strip()] if args.ops else None
        units = shard_units(plan_units(ops, select_ops(ops, patterns), dtypes), shard)
    except ValueError as exc:
        print(f"npu-emu conformance: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for u in units:
            print(u.key)
        return 0

    started = time.monotonic()
    print(f"npu-emu conformance: {len(units)} units, -j {args.jobs}, per-sample timeout {args.timeout:g} s",
          file=sys.stderr)
    progress = Progress(len(units))

    def on_done(result: UnitResult) -> None:
        result.apply_expectation(expectations.get(result.key))
        progress.unit_done(result)

    results = Runner(args.jobs, args.timeout, args.output_dir / "logs", on_done).run(units)
    progress.close()
    wall = time.monotonic() - started
    if args.update_expected:
        new = expected_file.updated(expectations, results)
        added = sorted(set(new) - set(expectations))
        removed = sorted(set(expectations) - set(new))
        expected_file.save(expected_path, new)
        print(f"{expected_path}: {len(added)} entries added, {len(removed)} removed, {len(new)} total",
              file=sys.stderr)
        for r in results:
            r.apply_expectation(new.get(r.key))
    selection = {"ops": args.ops or "all", "dtypes": ",".join(dtypes), "shard": str(shard) if shard else "none",
                 "jobs": args.jobs, "timeout_s": args.timeout}
    command = "npu-emu conformance " + shlex.join(argv)
    _write_reports("opinfo", results, args.output_dir, wall, command, selection, args.docs)
    print(f"reports: {args.output_dir}/{{{REPORT_JSON},{REPORT_JUNIT},{REPORT_MD}}}", file=sys.stderr)
    return _finish(results, wall)


def run_docs(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="npu-emu conformance docs",
                                description="Render a docs page from an existing JSON report.")
    p.add_argument("report", type=Path, help=f"a {REPORT_JSON} written by a run")
    p.add_argument("output", type=Path, help="the page to write, e.g. docs/conformance.md")
    args = p.parse_args(argv)
    report, results = json_report.read(args.report)
    write_docs(args.output, report, results)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "upstream":
        from npu_emu.conformance.upstream import run_upstream

        return run_upstream(argv[1:])
    if argv and argv[0] == "docs":
        return run_docs(argv[1:])
    return run_sweep(argv)
