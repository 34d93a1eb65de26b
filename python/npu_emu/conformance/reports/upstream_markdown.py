"""summary.md of an upstream run: totals as pytest counts them, per file,
the CPU comparison when given, and the failures grouped by cause (exception
type and normalized first line) with counts and examples, messages whole."""

from __future__ import annotations

from typing import Any, Sequence

from npu_emu.conformance.causes import cause, first_line
from npu_emu.conformance.results import UnitResult

OUTCOME_COLUMNS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
EXAMPLES = 3
CAUSES = 40


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}%"


def _code(text: str) -> str:
    """Inline code that survives backticks and pipes inside a table cell."""
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def group_by_cause(results: Sequence[UnitResult]) -> list[tuple[str, list[UnitResult]]]:
    groups: dict[str, list[UnitResult]] = {}
    for r in results:
        message = r.first_failure.message if r.first_failure else r.status
        groups.setdefault(cause(message), []).append(r)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def _cause_section(title: str, results: Sequence[UnitResult], note: str) -> list[str]:
    out = [f"## {title} ({len(results)})", ""]
    if not results:
        return out + ["None.", ""]
    groups = group_by_cause(results)
    out += [note, "", "| tests | cause | files |", "|---:|---|---|"]
    for text, group in groups[:CAUSES]:
        files = sorted({r.op.split("::", 1)[0] for r in group})
        out.append(f"| {len(group)} | {_code(text)} | {', '.join(files)} |")
    if len(groups) > CAUSES:
        out.append(f"| {sum(len(g) for _, g in groups[CAUSES:])} | ({len(groups) - CAUSES} more causes) | |")
    out.append("")
    for text, group in groups[:CAUSES]:
        out += [f"### {len(group)} × {_code(text)}", ""]
        for r in group[:EXAMPLES]:
            out.append(f"- `{r.test_id or r.key}`")
        if len(group) > EXAMPLES:
            out.append(f"- … and {len(group) - EXAMPLES} more")
        example = group[0].first_failure.message if group[0].first_failure else ""
        if example:
            lines = example.splitlines()[:8]
            out += ["", "```", *lines, "```"]
        out.append("")
    return out


def render(report: dict[str, Any], results: Sequence[UnitResult]) -> str:
    t = report["totals"]
    po, oc = t["pytest_outcomes"], t["outcome"]
    sel = report["selection"]
    out = ["# Upstream run: PyTorch's own test files on " + report.get("device", "npu"), "",
           f"- torch {report['torch_version']}, npu-emu {report['npu_emu_version']}",
           f"- command: `{report['command']}`",
           f"- selection: {', '.join(f'{k}={v}' for k, v in sel.items())}",
           f"- created {report['created_utc']}, wall time {report['wall_time_s']:.0f} s", "",
           "## Totals (as pytest counts them)", "",
           "| tests | " + " | ".join(OUTCOME_COLUMNS) + " |", "|---:|" + "---:|" * len(OUTCOME_COLUMNS),
           f"| {t['units']} | " + " | ".join(str(po[c]) for c in OUTCOME_COLUMNS) + " |", "",
           "xfailed: the test file's own expected-failure marks; xpassed: a non-strict expected failure that "
           "passed (pytest does not fail it). A file that crashed or hit a time limit is one `error` unit.", "",
           f"Against the expected-failures file: {oc['pass']} pass, {oc['xfail']} expected failures "
           f"(listed, or marked by the test file), {oc['skip']} skipped, **{oc['fail']} unexpected failures, "
           f"{oc['xpass']} unexpected passes**.", "",
           "## Per file", "",
           "tests: the sum of the test durations pytest measured; wall: the file's pytest process, start to exit "
           "(import, collection and the time limit included).", "",
           "| file | tests | " + " | ".join(OUTCOME_COLUMNS) + " | tests (s) | wall (s) |",
           "|---|---:|" + "---:|" * len(OUTCOME_COLUMNS) + "---:|---:|"]
    for file, counts in report.get("files", {}).items():
        wall = counts.get("wall_s")
        out.append(f"| {file} | {sum(counts[c] for c in OUTCOME_COLUMNS)} | "
                   + " | ".join(str(counts[c]) for c in OUTCOME_COLUMNS)
                   + f" | {counts['time_s']:.0f} | {'–' if wall is None else f'{wall:.0f}'} |")
    out.append("")
    ref = report.get("cpu_reference")
    if ref:
        out += ["## npu against CPU (the same tests)", "",
                f"CPU reference: `{ref['source']}`. Over the tests reported on both sides "
                f"({ref['only_npu_reported']} reported only on npu, {ref['only_cpu_reported']} only on CPU, "
                "left out): passed on each, and npu's pass count as a share of CPU's; then the same over the "
                "tests neither side skipped (tests restricted to one device type, `@onlyCPU` or "
                "`@onlyNativeDeviceTypes`, skip on the other).", "",
                "| file | tests | CPU passed | npu passed | npu / CPU | pass on CPU only | pass on npu only "
                "| ran on both | CPU passed | npu passed | npu / CPU |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for file, f in [*ref["files"].items(), ("**total**", ref["total"])]:
            out.append(f"| {file} | {f['tests']} | {f['cpu_passed']} | {f['npu_passed']} | {_pct(f['ratio'])} | "
                       f"{f['cpu_only_passed']} | {f['npu_only_passed']} | {f['ran_on_both']} | "
                       f"{f['cpu_passed_of_ran']} | {f['npu_passed_of_ran']} | {_pct(f['ratio_of_ran'])} |")
        out.append("")
    unexpected = [r for r in results if r.outcome == "fail"]
    expected = [r for r in results if r.outcome == "xfail" and r.pytest_outcome != "xfailed"]
    out += _cause_section("Unexpected failures by cause", unexpected,
                          "Failures not in the expected-failures file, grouped by the exception type and the first "
                          "line of its message (numbers, addresses and shapes masked).")
    xpass = [r for r in results if r.outcome == "xpass"]
    out += [f"## Unexpected passes ({len(xpass)})", ""]
    out += [f"- `{r.test_id}`: listed as {_code(r.expected_reason)}" for r in xpass] or ["None."]
    out.append("")
    out += _cause_section("Expected failures by cause", expected,
                          "Failures the expected-failures file lists, grouped the same way.")
    skips: dict[str, int] = {}
    for r in results:
        if r.outcome == "skip":
            key = first_line(r.skip_reason)
            skips[key] = skips.get(key, 0) + 1
    out += [f"## Skip reasons (top {CAUSES})", ""]
    if skips:
        out += ["| tests | reason |", "|---:|---|"]
        out += [f"| {n} | {_code(k)} |" for k, n in sorted(skips.items(), key=lambda kv: (-kv[1], kv[0]))[:CAUSES]]
    else:
        out.append("None.")
    out.append("")
    return "\n".join(out)
