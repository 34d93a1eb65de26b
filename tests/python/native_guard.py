"""Fixtures proving ops run natively: the CPU fallback is forbidden inside."""

from __future__ import annotations

import pytest

import npu_emu


@pytest.fixture
def native_only():
    """NPU_EMU_FALLBACK=error for one test; any op reaching the fallback raises."""
    npu_emu._C._set_fallback_mode("error")
    yield
    npu_emu._C._set_fallback_mode("warn")


def assert_not_in_fallback(before: dict[str, int], names: list[str]) -> None:
    """None of the ops whose aten names start with `names` went through the fallback since `before`."""
    after = npu_emu.fallback_report()
    grown = [op for op, n in after.items() if n > before.get(op, 0)
             and any(op == f"aten::{name}" or op.startswith(f"aten::{name}.") for name in names)]
    assert not grown, f"ran through the CPU fallback: {grown}"
