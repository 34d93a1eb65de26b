"""What a run covers: OpInfo x dtype units, selected by --ops/--dtypes and
split by --shard. A unit is one (op, dtype) pair with all of its samples; it
is the unit of scheduling, of reporting and of the expected-failures file."""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import torch

# The dtypes the sweep covers, by the name used on the command line and in
# every report.
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
    "complex64": torch.complex64,
}


@dataclass(frozen=True, order=True)
class Unit:
    op: str  # OpInfo full name: name, or name.variant_test_name
    dtype: str  # a key of DTYPES

    @property
    def key(self) -> str:
        return f"{self.op}/{self.dtype}"


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def op_full_name(op: Any) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def load_op_db() -> dict[str, Any]:
    """Full name -> OpInfo. Importing the database takes seconds: call once per process."""
    from torch.testing._internal.common_methods_invocations import op_db

    return {op_full_name(op): op for op in op_db}


def parse_dtypes(text: str | None) -> list[str]:
    if not text or text == "all":
        return list(DTYPES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in DTYPES]
    if bad:
        raise ValueError(f"--dtypes: unknown dtype(s) {', '.join(bad)}; allowed: all, {', '.join(DTYPES)}")
    return [n for n in DTYPES if n in names]


def parse_shard(text: str | None) -> Shard | None:
    if not text:
        return None
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard expects I/N with integers 1 <= I <= N (e.g. 2/4), got {text!r}") from None
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"--shard expects I/N with 1 <= I <= N, got {text!r}")
    return Shard(i, n)


def select_ops(all_ops: Iterable[str], patterns: Sequence[str] | None) -> list[str]:
    """Ops matching any pattern: an exact full name, an op name (all of its
    variants) or a shell glob (`nn.functional.*`)."""
    names = sorted(all_ops)
    if not patterns:
        return names
    chosen: set[str] = set()
    for pattern in patterns:
        hits = [n for n in names
                if n == pattern or _is_variant_of(n, pattern, names) or fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            close = difflib.get_close_matches(pattern, names, n=5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"--ops: no OpInfo named {pattern!r}{hint}")
        chosen.update(hits)
    return sorted(chosen)


def _is_variant_of(full: str, base: str, names: Sequence[str]) -> bool:
    # "sum" selects "sum" and its variants, but "nn" must not select every
    # "nn.functional.*" op: a variant is "<base>.<variant>" where <base> is an op.
    return base in names and full.startswith(base + ".")


def plan_units(ops: dict[str, Any], op_names: Sequence[str], dtypes: Sequence[str]) -> list[Unit]:
    """Every (op, dtype) pair the op supports on CPU, sorted by key."""
    units = []
    for name in op_names:
        supported = ops[name].supported_dtypes("cpu")
        units.extend(Unit(name, d) for d in dtypes if DTYPES[d] in supported)
    return sorted(units, key=lambda u: u.key)


def shard_units(units: Sequence[Unit], shard: Shard | None) -> list[Unit]:
    """Round-robin over the sorted units: the shards 1..N are disjoint, their
    union is the whole selection, and neighbouring ops spread across shards."""
    if shard is None:
        return list(units)
    ordered = sorted(units, key=lambda u: u.key)
    return [u for i, u in enumerate(ordered) if i % shard.count == shard.index - 1]
