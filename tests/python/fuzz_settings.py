"""Hypothesis settings shared by the fuzz targets (tests/python/test_fuzz_*.py).

In CI (the default) every target runs a fixed number of examples chosen so
that it takes a few seconds, derandomized: the same examples every run, so a
failure reproduces. NPU_EMU_FUZZ=long runs many more examples with fresh
randomness, for a long local session (NPU_EMU_FUZZ_EXAMPLES=N sets the count):

    NPU_EMU_FUZZ=long NPU_EMU_FUZZ_EXAMPLES=20000 python -m pytest tests/python/test_fuzz_formats.py
"""

from __future__ import annotations

import os

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the fuzz targets need hypothesis (scripts/setup.sh installs it)")

_MODES = ("ci", "long")


def _mode() -> str:
    mode = os.environ.get("NPU_EMU_FUZZ", "") or "ci"
    if mode not in _MODES:
        raise ValueError(f"NPU_EMU_FUZZ must be one of {', '.join(_MODES)} (or unset), got {mode!r}")
    return mode


def _long_examples() -> int:
    text = os.environ.get("NPU_EMU_FUZZ_EXAMPLES", "") or "5000"
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"NPU_EMU_FUZZ_EXAMPLES must be a positive integer, got {text!r}")
    return int(text)


def fuzz_settings(ci_examples: int) -> hypothesis.settings:
    """`ci_examples` examples, derandomized, in CI; the long profile otherwise."""
    common = {"deadline": None, "database": None,
              "suppress_health_check": [hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.data_too_large]}
    if _mode() == "long":
        return hypothesis.settings(max_examples=_long_examples(), derandomize=False, **common)
    return hypothesis.settings(max_examples=ci_examples, derandomize=True, print_blob=True, **common)
