"""Results of a run: per sample, folded into one result per unit (op, dtype).

Unit status, from its samples: `errored` if any sample raised on npu (or
timed out, or crashed its worker), else `failed` if any sample's result (or
gradient) did not match CPU, else `passed` if any sample passed, else
`skipped` (no sample could be compared).

Outcome, after the expected-failures file: `pass`, `fail` (unexpected
failure), `xfail` (failed or errored, as expected), `xpass` (passed but
listed as expected to fail), `skip`. Only `fail` and `xpass` are unexpected.
A unit listed as machine-dependent (`may fail: ` reason, `may_fail` true)
is `xfail` when it fails and `pass` when it passes: both are accepted.

Native vs fallback: a sample ran natively if no op went through the CPU
fallback during its npu forward call (npu_emu.fallback_report() before and
after the call; the copies that move inputs to npu and outputs back are not
part of it). A unit is native if every sample that ran on npu was native."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SAMPLE_STATUSES = ("passed", "failed", "errored", "skipped")
UNIT_STATUSES = ("passed", "failed", "errored", "skipped")
OUTCOMES = ("pass", "fail", "xfail", "xpass", "skip")
UNEXPECTED_OUTCOMES = ("fail", "xpass")


@dataclass
class SampleResult:
    index: int
    status: str  # one of SAMPLE_STATUSES
    phase: str = "forward"  # "forward" or "grad": where the failure/error happened
    message: str = ""
    description: str = ""  # the sample's shapes
    native: bool | None = None  # None when the npu forward did not run
    fallback_ops: dict[str, int] = field(default_factory=dict)
    native_ops: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0
    summation_bound: bool = False  # passed by the summation-order bound only (summation_bound.py)


@dataclass
class FirstFailure:
    sample: int
    status: str
    phase: str
    description: str
    message: str


@dataclass
class UnitResult:
    op: str
    dtype: str
    status: str = "skipped"
    outcome: str = "skip"
    samples: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SAMPLE_STATUSES})
    first_failure: FirstFailure | None = None
    native: bool | None = None
    native_samples: int = 0
    fallback_samples: int = 0
    fallback_ops: dict[str, int] = field(default_factory=dict)
    native_ops: dict[str, int] = field(default_factory=dict)
    grad_checked: bool = False
    rtol: float = 0.0
    atol: float = 0.0
    tolerance_source: str = "default"  # "opinfo" or "default"
    skip_reason: str = ""
    expected_reason: str = ""
    duration_s: float = 0.0
    may_fail: bool = False  # listed as machine-dependent: failing or passing are both expected
    summation_bound_samples: int = 0  # samples passed by the summation-order bound (summation_bound.py)
    # Upstream runs only (PyTorch's test files): the test as pytest named it,
    # its id with the class name made canonical (the expected-failures key),
    # pytest's own outcome (passed, failed, error, skipped, xfailed, xpassed),
    # and the end of a failure's traceback.
    classname: str = ""
    name: str = ""
    test_id: str = ""
    pytest_outcome: str = ""
    details: str = ""

    @property
    def key(self) -> str:
        return f"{self.op}/{self.dtype}" if self.dtype else self.op

    def add_sample(self, sample: SampleResult) -> None:
        self.samples[sample.status] += 1
        self.duration_s += sample.duration_s
        if sample.summation_bound and sample.status == "passed":
            self.summation_bound_samples += 1
        if sample.native is True:
            self.native_samples += 1
        elif sample.native is False:
            self.fallback_samples += 1
        for name, count in sample.fallback_ops.items():
            self.fallback_ops[name] = self.fallback_ops.get(name, 0) + count
        for name, count in sample.native_ops.items():
            self.native_ops[name] = self.native_ops.get(name, 0) + count
        if sample.status in ("failed", "errored") and self.first_failure is None:
            self.first_failure = FirstFailure(sample.index, sample.status, sample.phase, sample.description,
                                              sample.message)

    def finish(self) -> None:
        """Derives status and nativeness from the samples."""
        if self.samples["errored"]:
            self.status = "errored"
        elif self.samples["failed"]:
            self.status = "failed"
        elif self.samples["passed"]:
            self.status = "passed"
        else:
            self.status = "skipped"
            if not self.skip_reason:
                self.skip_reason = ("CPU raised on every sample" if self.samples["skipped"]
                                    else "the OpInfo has no samples for this dtype")
        ran = self.native_samples + self.fallback_samples
        self.native = None if ran == 0 else self.fallback_samples == 0
        self.fallback_ops = dict(sorted(self.fallback_ops.items()))
        self.native_ops = dict(sorted(self.native_ops.items()))

    def apply_expectation(self, expected_reason: str | None) -> None:
        from npu_emu.conformance.expected import may_fail

        self.expected_reason = expected_reason or ""
        self.may_fail = may_fail(expected_reason)
        failing = self.status in ("failed", "errored")
        if self.status == "skipped":
            self.outcome = "skip"
        elif self.may_fail:
            self.outcome = "xfail" if failing else "pass"
        elif expected_reason is not None:
            self.outcome = "xfail" if failing else "xpass"
        else:
            self.outcome = "fail" if failing else "pass"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["key"] = self.key
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "UnitResult":
        d = {k: v for k, v in d.items() if k != "key"}
        ff = d.pop("first_failure", None)
        unit = cls(**d)
        unit.first_failure = FirstFailure(**ff) if ff else None
        return unit
