"""The Markdown summary: totals, native vs fallback, by dtype, worst ops,
unexpected results. The same text, with a header, is docs/conformance.md."""

from __future__ import annotations

from typing import Any, Sequence

from npu_emu.op_table import served_by_table
from npu_emu.conformance.reports.summary import unexpected
from npu_emu.conformance.results import UnitResult

FALLBACK_OPS = 30
WORST_OPS = 25


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}%"


def _cell(text: str, limit: int = 110) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(report: dict[str, Any], results: Sequence[UnitResult], title: str = "Conformance summary") -> str:
    t = report["totals"]
    st, oc, sa = t["status"], t["outcome"], t["samples"]
    sel = report["selection"]
    out = [f"# {title}", ""]
    out += [f"- kind: {report['kind']}; torch {report['torch_version']}, npu-emu {report['npu_emu_version']}",
            f"- command: `{report['command']}`",
            f"- selection: {', '.join(f'{k}={v}' for k, v in sel.items())}",
            f"- created {report['created_utc']}, wall time {report['wall_time_s']:.0f} s", ""]
    out += ["## Totals", "",
            "| units | passed | failed | errored | skipped | pass rate (of units run) |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {t['units']} | {st['passed']} | {st['failed']} | {st['errored']} | {st['skipped']} "
            f"| {_pct(t['pass_rate'])} |", "",
            f"Samples: {sa['passed']} passed, {sa['failed']} failed, {sa['errored']} errored, "
            f"{sa['skipped']} skipped.", "",
            f"Against the expected-failures file: {oc['pass']} pass, {oc['xfail']} expected failures, "
            f"{oc['skip']} skipped, **{oc['fail']} unexpected failures, {oc['xpass']} unexpected passes**.", ""]
    if report["kind"] == "opinfo":
        out += ["## Native vs fallback", "",
                "A unit is *native* when no op went through the CPU fallback during the npu forward "
                "call of any of its samples.", "",
                "| | units run | passed | pass rate |", "|---|---:|---:|---:|",
                f"| native | {t['native_units']} | {t['native_passed']} | {_pct(t['native_pass_rate'])} |",
                f"| fallback | {t['fallback_units']} | {t['fallback_passed']} | {_pct(t['fallback_pass_rate'])} |",
                ""]
    out += ["## By dtype", "",
            "| dtype | units | passed | failed | errored | skipped | pass rate | native units | native pass rate |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for dtype, d in report["by_dtype"].items():
        s = d["status"]
        out.append(f"| {dtype or '–'} | {d['units']} | {s['passed']} | {s['failed']} | {s['errored']} | "
                   f"{s['skipped']} | {_pct(d['pass_rate'])} | {d['native_units']} | "
                   f"{_pct(d['native_pass_rate'])} |")
    out.append("")
    bad = unexpected(results)
    out += ["## Unexpected results", ""]
    if bad:
        out += ["| unit | outcome | first failure |", "|---|---|---|"]
        out += [f"| `{r.key}` | {r.outcome} | {_cell(r.first_failure.message if r.first_failure else '')} |"
                for r in bad]
    else:
        out.append("None.")
    out.append("")
    machine_dependent = [r for r in results if r.may_fail]
    if machine_dependent:
        out += ["## Machine-dependent units (may fail)", "",
                "Listed in the expected-failures file as `may fail`: their result depends on the CPU "
                "PyTorch's reference ran on, so passing and failing are both accepted.", "",
                "| unit | here | reason |", "|---|---|---|"]
        out += [f"| `{r.key}` | {r.status} | {_cell(r.expected_reason)} |" for r in machine_dependent]
        out.append("")
    out += _fallback_ops(results)
    worst = sorted((r for r in results if r.status in ("failed", "errored")),
                   key=lambda r: (-(r.samples["failed"] + r.samples["errored"]), r.key))[:WORST_OPS]
    out += [f"## Worst units (most failing samples, top {WORST_OPS})", ""]
    if worst:
        out += ["| unit | failing samples | of | native | first failure |", "|---|---:|---:|---|---|"]
        for r in worst:
            n = sum(r.samples.values())
            mode = {True: "yes", False: "no", None: "–"}[r.native]
            msg = r.first_failure.message.splitlines()[0] if r.first_failure and r.first_failure.message else ""
            out.append(f"| `{r.key}` | {r.samples['failed'] + r.samples['errored']} | {n} | {mode} | {_cell(msg)} |")
    else:
        out.append("None.")
    out.append("")
    return "\n".join(out)


def _fallback_ops(results) -> list[str]:
    """The aten ops that ran through the CPU fallback, most units first, and
    whether the op table serves them (then a dtype or the ACL library's
    symbols were not covered) or not (no native kernel yet)."""
    units: dict[str, int] = {}
    calls: dict[str, int] = {}
    for r in results:
        for op, n in r.fallback_ops.items():
            units[op] = units.get(op, 0) + 1
            calls[op] = calls.get(op, 0) + n
    out = [f"## Fallback ops (top {FALLBACK_OPS})", ""]
    if not units:
        return out + ["None.", ""]
    out += ["| aten op | units | calls | in the op table |", "|---|---:|---:|---|"]
    for op in sorted(units, key=lambda o: (-units[o], o))[:FALLBACK_OPS]:
        served = served_by_table(op)
        where = f"yes ({served}): dtype not covered" if served else "no: no native kernel"
        out.append(f"| `{op}` | {units[op]} | {calls[op]} | {where} |")
    return out + [""]
