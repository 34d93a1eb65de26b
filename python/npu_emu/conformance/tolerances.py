"""What an OpInfo says about comparing a device with CPU: its tolerance
overrides and its skips for TestCommon.test_compare_cpu (PyTorch's own
device-vs-CPU test), which this runner mirrors.

Decorators are recognised by what they leave on a dummy test function:
`toleranceOverride` sets `tolerance_overrides`, `precisionOverride` sets
`precision_overrides`, `unittest.skip` sets `__unittest_skip__` and
`unittest.expectedFailure` sets `__unittest_expecting_failure__`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

# Used when the OpInfo has no override for the dtype: torch.testing.assert_close's
# defaults (rtol, atol), listed here so docs and reports can state them.
DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
}

_TEST_CLASS = "TestCommon"
_TEST_NAME = "test_compare_cpu"
# Decorators restricted to a device type (cpu, cuda, ...) describe that
# device, not npu; only device-agnostic ones apply.
_DEVICE_TYPE = "privateuse1"


# Ops whose output is random but whose OpInfo does not say so (others carry
# has_nondeterministic_output or skip test_compare_cpu): not compared.
RANDOM_OUTPUT_OPS = frozenset({"randn", "randint", "nn.functional.alpha_dropout"})


@dataclass(frozen=True)
class CompareSpec:
    rtol: float
    atol: float
    from_opinfo: bool  # True if the OpInfo overrides the defaults for this dtype
    skip_reason: str | None  # the OpInfo says not to compare with CPU at all


def _dummy_test() -> None:
    pass


def _applied(decorator: Any) -> Any:
    try:
        return decorator(_dummy_test)
    except Exception:  # a decorator that needs a real test: it carries nothing we read
        return None


def compare_spec(op: Any, dtype: torch.dtype) -> CompareSpec:
    rtol, atol = DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))
    from_opinfo = False
    skip_reason = None
    if getattr(op, "has_nondeterministic_output", False):
        skip_reason = "OpInfo: nondeterministic output"
    elif op.name in RANDOM_OUTPUT_OPS or f"{op.name}.{op.variant_test_name}" in RANDOM_OUTPUT_OPS:
        skip_reason = "random output (npu-emu's list of unmarked random ops)"
    for info in op.decorators:
        if not hasattr(info, "is_active") or not info.is_active(_TEST_CLASS, _TEST_NAME, _DEVICE_TYPE, dtype, {}):
            continue
        for decorator in info.decorators:
            fn = _applied(decorator)
            if fn is None:
                continue
            tolerances = getattr(fn, "tolerance_overrides", None) or {}
            if dtype in tolerances:
                rtol, atol = tolerances[dtype].rtol, tolerances[dtype].atol
                from_opinfo = True
            precisions = getattr(fn, "precision_overrides", None) or {}
            if dtype in precisions:
                atol = precisions[dtype]
                from_opinfo = True
            if getattr(fn, "__unittest_skip__", False) and skip_reason is None:
                skip_reason = f"OpInfo skips {_TEST_NAME}: {getattr(fn, '__unittest_skip_why__', '')}".rstrip(": ")
            if getattr(fn, "__unittest_expecting_failure__", False) and skip_reason is None:
                skip_reason = f"OpInfo expects {_TEST_NAME} to fail"
            # Clear the marks for the next decorator: they were set on the shared dummy.
            for attr in ("tolerance_overrides", "precision_overrides", "__unittest_skip__",
                         "__unittest_skip_why__", "__unittest_expecting_failure__"):
                if hasattr(_dummy_test, attr):
                    delattr(_dummy_test, attr)
    return CompareSpec(rtol, atol, from_opinfo, skip_reason)
