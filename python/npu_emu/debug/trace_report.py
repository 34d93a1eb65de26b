"""`npu-emu formats report trace.jsonl`: where a format trace's casts and
CPU fallbacks come from, per op, per call site and per format pair, as text
and as a bar chart."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# Events that move data between formats; "relabel" (base to base, in place)
# moves nothing and "create" is a format decision, not a cast.
CAST_EVENTS = ("cast", "copy")
# A private-format parameter an aclnn entry of the emulator computes on
# through base-format scratch: a conversion inside the op, counted apart.
ENTRY_CAST = "entry_cast"


@dataclass
class TraceSummary:
    events: int = 0
    casts: int = 0
    cast_bytes: int = 0
    fallbacks: int = 0
    fallback_bytes: int = 0
    relabels: int = 0
    created: int = 0
    casts_by_op: Counter = field(default_factory=Counter)
    casts_by_site: Counter = field(default_factory=Counter)
    casts_by_pair: Counter = field(default_factory=Counter)
    bytes_by_site: Counter = field(default_factory=Counter)
    fallbacks_by_op: Counter = field(default_factory=Counter)
    fallbacks_by_site: Counter = field(default_factory=Counter)
    entry_casts: int = 0
    entry_cast_bytes: int = 0
    entry_casts_by_entry: Counter = field(default_factory=Counter)
    entry_casts_by_site: Counter = field(default_factory=Counter)


def _site(e: dict) -> str:
    if e.get("site"):
        return e["site"]
    return f"<no Python frame: {e['op']}>" if e.get("op") else "<no Python frame>"


def load(path: str | Path) -> list[dict]:
    """The events of a trace file (one JSON object per line)."""
    events = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{number} is not a JSON line of a format trace: {e}") from None
    return events


def summarize(events: list[dict]) -> TraceSummary:
    s = TraceSummary(events=len(events))
    for e in events:
        kind = e.get("event")
        if kind in CAST_EVENTS:
            s.casts += 1
            s.cast_bytes += int(e.get("bytes", 0))
            op = e.get("op") or e.get("decided_by") or "<no op>"
            s.casts_by_op[op] += 1
            s.casts_by_site[_site(e)] += 1
            s.bytes_by_site[_site(e)] += int(e.get("bytes", 0))
            s.casts_by_pair[f"{e.get('from')} -> {e.get('to')}"] += 1
        elif kind == "fallback":
            s.fallbacks += 1
            s.fallback_bytes += int(e.get("bytes", 0))
            s.fallbacks_by_op[e.get("fallback_op", "?")] += 1
            s.fallbacks_by_site[_site(e)] += 1
        elif kind == ENTRY_CAST:
            s.entry_casts += 1
            s.entry_cast_bytes += int(e.get("bytes", 0))
            s.entry_casts_by_entry[f"{e.get('entry')} {e.get('param')}: {e.get('from')} -> {e.get('to')}"] += 1
            s.entry_casts_by_site[_site(e)] += 1
        elif kind == "relabel":
            s.relabels += 1
        elif kind == "create":
            s.created += 1
    return s


def _table(title: str, counts: Counter, total: int, top: int, steps: int) -> list[str]:
    if not counts:
        return []
    lines = [title]
    for key, n in counts.most_common(top):
        per = f"  ({n / steps:g} per step)" if steps > 1 else ""
        lines.append(f"  {n:6d}  {100 * n / total:5.1f} %  {key}{per}")
    if len(counts) > top:
        lines.append(f"  ... {len(counts) - top} more")
    return lines


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


def report_text(s: TraceSummary, *, top: int = 10, steps: int = 1) -> str:
    """The summary as text; `steps`: how many training steps the trace
    covers (counts are also given per step)."""
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    per = f" ({s.casts / steps:g} per step)" if steps > 1 else ""
    lines = [f"{s.casts} format casts{per}, {_mib(s.cast_bytes)} moved; {s.fallbacks} CPU fallbacks, "
             f"{_mib(s.fallback_bytes)} moved; {s.relabels} relabels; {s.created} private-format tensors created "
             f"({s.events} events)"]
    if s.casts_by_site:
        site, n = s.casts_by_site.most_common(1)[0]
        lines.append(f"{100 * n / s.casts:.0f} % of the casts at {site}")
    lines += _table("casts per op:", s.casts_by_op, s.casts, top, steps)
    lines += _table("casts per call site:", s.casts_by_site, s.casts, top, steps)
    lines += _table("casts per format pair:", s.casts_by_pair, s.casts, top, steps)
    if s.entry_casts:
        lines.append(f"{s.entry_casts} conversions inside aclnn entries (base-format scratch), "
                     f"{_mib(s.entry_cast_bytes)} moved")
    lines += _table("conversions inside aclnn entries, per entry and parameter:", s.entry_casts_by_entry,
                    s.entry_casts, top, steps)
    lines += _table("conversions inside aclnn entries, per call site:", s.entry_casts_by_site, s.entry_casts,
                    top, steps)
    lines += _table("CPU fallbacks per op:", s.fallbacks_by_op, s.fallbacks, top, steps)
    lines += _table("CPU fallbacks per call site:", s.fallbacks_by_site, s.fallbacks, top, steps)
    return "\n".join(lines)


def plot_panels(s: TraceSummary) -> list[tuple[str, Counter]]:
    """The report plot's bar charts: casts per call site and per op, then
    what the trace has of CPU fallbacks and of conversions inside aclnn
    entries (often the larger share of a training step's re-layouts)."""
    panels = [("casts per call site", s.casts_by_site), ("casts per op", s.casts_by_op)]
    if s.fallbacks:
        panels.append(("CPU fallbacks per op", s.fallbacks_by_op))
    if s.entry_casts:
        panels += [("conversions inside aclnn entries per call site", s.entry_casts_by_site),
                   ("conversions inside aclnn entries per entry and parameter", s.entry_casts_by_entry)]
    return panels


def report_plot(s: TraceSummary, path: str | Path, *, top: int = 10) -> Path:
    """plot_panels(s) as horizontal bar charts in one PNG (320 pixels high each)."""
    from npu_emu.debug.render import _require_matplotlib

    Figure, FigureCanvasAgg = _require_matplotlib()
    panels = plot_panels(s)
    fig = Figure(figsize=(10, 3.2 * len(panels)), dpi=100)
    FigureCanvasAgg(fig)
    colors = {"casts": "tab:purple", "CPU fallbacks": "tab:orange", "conversions": "tab:blue"}
    for i, (title, counts) in enumerate(panels, 1):
        ax = fig.add_subplot(len(panels), 1, i)
        items = counts.most_common(top)[::-1]
        color = next(c for prefix, c in colors.items() if title.startswith(prefix))
        ax.barh([k[-60:] for k, _ in items], [n for _, n in items], color=color)
        ax.set_title(title + ("" if items else " (none)"), fontsize=10)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    return path
