"""Comparing npu results (moved to CPU) with the CPU reference."""

from __future__ import annotations

from typing import Any

import torch

from npu_emu.conformance.tolerances import CompareSpec


def assert_matches(actual: Any, expected: Any, spec: CompareSpec) -> None:
    """Raises AssertionError (torch.testing's message) if they differ.

    With an OpInfo override the override's rtol/atol apply; otherwise
    assert_close picks its defaults from each output's dtype (exact for
    integers and bool), so an integer op with a float output is compared as
    float."""
    tolerances = {"rtol": spec.rtol, "atol": spec.atol} if spec.from_opinfo else {}
    torch.testing.assert_close(actual, expected, equal_nan=True, **tolerances)


def first_line(text: str, limit: int = 200) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def describe_exception(exc: BaseException, limit: int = 2000) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def corrupt(value: Any) -> Any:
    """The planted wrong result: the first tensor of `value` changed (test-only,
    NPU_EMU_CONFORMANCE_PLANT)."""
    done = False

    def visit(v: Any) -> Any:
        nonlocal done
        if isinstance(v, torch.Tensor) and not done and v.numel() > 0:
            done = True
            return v.logical_not() if v.dtype == torch.bool else v + 1
        if isinstance(v, tuple) and hasattr(type(v), "n_fields"):
            return type(v)([visit(x) for x in v])
        if isinstance(v, (list, tuple)):
            return type(v)(visit(x) for x in v)
        return v

    return visit(value)
