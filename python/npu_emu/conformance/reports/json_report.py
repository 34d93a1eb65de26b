"""The JSON report: the whole run, machine-readable (schema in schema.py)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any, Sequence

from npu_emu.conformance.reports.schema import SCHEMA_VERSION
from npu_emu.conformance.reports.summary import by_dtype, totals
from npu_emu.conformance.results import UnitResult


def build(kind: str, results: Sequence[UnitResult], *, wall_time_s: float, command: str,
          selection: dict[str, Any]) -> dict[str, Any]:
    import torch

    import npu_emu

    ordered = sorted(results, key=lambda r: r.key)
    return {
        "schema": "npu-emu-conformance-report",
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_time_s": round(wall_time_s, 1),
        "torch_version": torch.__version__,
        "npu_emu_version": npu_emu.__version__,
        "command": command,
        "selection": selection,
        "totals": totals(ordered),
        "by_dtype": by_dtype(ordered),
        "units": [r.to_dict() for r in ordered],
    }


def write(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n")


def read(path: Path) -> tuple[dict[str, Any], list[UnitResult]]:
    report = json.loads(path.read_text())
    if report.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path}: report schema version {report.get('schema_version')!r}, "
                         f"this runner reads version {SCHEMA_VERSION}")
    return report, [UnitResult.from_dict(u) for u in report["units"]]
