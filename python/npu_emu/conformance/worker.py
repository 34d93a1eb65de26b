"""A worker process: imports the npu backend and PyTorch's OpInfo database
once, then runs the units the runner sends it, reporting each sample as it
starts and ends so the runner can enforce the per-sample timeout.

Messages to the runner (tuples): ("ready",), ("meta", dict), ("begin", i,
description), ("sample", dict), ("done",), ("unit_error", message).
Messages from the runner: ("unit", op, dtype, first_sample), ("stop",).

Test-only switches (environment, comma-separated OpInfo full names):
NPU_EMU_CONFORMANCE_PLANT corrupts those ops' npu results before the
comparison; NPU_EMU_CONFORMANCE_HANG makes their first sample hang."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any, Callable

PLANT_ENV = "NPU_EMU_CONFORMANCE_PLANT"
HANG_ENV = "NPU_EMU_CONFORMANCE_HANG"

Send = Callable[[tuple], None]


def _names(env: str) -> set[str]:
    return {n.strip() for n in os.environ.get(env, "").split(",") if n.strip()}


def _delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0) > 0}


class UnitExecutor:
    def __init__(self) -> None:
        import torch

        import npu_emu
        from npu_emu.conformance.plan import load_op_db

        self.torch = torch
        self.npu_emu = npu_emu
        self.ops = load_op_db()
        self.plant = _names(PLANT_ENV)
        self.hang = _names(HANG_ENV)

    def run(self, op_name: str, dtype_name: str, start: int, send: Send) -> None:
        from npu_emu.conformance.plan import DTYPES
        from npu_emu.conformance.tolerances import compare_spec

        torch = self.torch
        op = self.ops[op_name]
        dtype = DTYPES[dtype_name]
        spec = compare_spec(op, dtype)
        grad = (dtype == torch.float32 and op.supports_autograd
                and dtype in op.supported_backward_dtypes("cpu"))
        meta: dict[str, Any] = {"rtol": spec.rtol, "atol": spec.atol,
                                "tolerance_source": "opinfo" if spec.from_opinfo else "default",
                                "grad_checked": grad, "skip_reason": spec.skip_reason or ""}
        if spec.skip_reason:
            send(("meta", meta))
            send(("done",))
            return
        torch.manual_seed(0)  # the same samples every time, so a restarted unit resumes where it stopped
        try:
            samples = list(op.sample_inputs("cpu", dtype, requires_grad=grad))
        except Exception as exc:  # noqa: BLE001  an OpInfo problem, not an npu one
            from npu_emu.conformance.compare import describe_exception
            meta["skip_reason"] = f"sample_inputs raised {describe_exception(exc, 300)}"
            send(("meta", meta))
            send(("done",))
            return
        send(("meta", meta))
        from npu_emu.conformance.samples import describe
        for i in range(start, len(samples)):
            send(("begin", i, describe(samples[i])))
            result = self._run_sample(op, op_name, samples[i], i, spec, grad, dtype)
            send(("sample", asdict(result)))
        send(("done",))

    def _run_sample(self, op: Any, op_name: str, sample: Any, index: int, spec: Any, grad: bool,
                    dtype: Any) -> Any:
        from npu_emu.conformance import summation_bound
        from npu_emu.conformance.compare import assert_matches, corrupt, describe_exception
        from npu_emu.conformance.results import SampleResult
        from npu_emu.conformance.samples import describe, sample_to_npu, to_cpu

        torch = self.torch
        t0 = time.perf_counter()
        result = SampleResult(index, "passed", description=describe(sample))

        def done(status: str, phase: str = "forward", message: str = "") -> SampleResult:
            result.status, result.phase, result.message = status, phase, message
            result.duration_s = time.perf_counter() - t0
            return result

        try:
            expected = op(sample.input, *sample.args, **sample.kwargs)
        except Exception as exc:  # noqa: BLE001  the sample is invalid on CPU too
            return done("skipped", message=f"CPU reference raised {describe_exception(exc, 300)}")
        try:
            npu_sample = sample_to_npu(sample, op.name)
            torch.npu.synchronize()
        except Exception as exc:  # noqa: BLE001
            return done("errored", message=f"moving the sample to npu: {describe_exception(exc)}")

        fallback_before = self.npu_emu.fallback_report()
        native_before = self.npu_emu.native_report()
        error: BaseException | None = None
        try:
            if op_name in self.hang and index == 0:
                threading.Event().wait()  # planted hang: only the runner's timeout ends it
            actual = op(npu_sample.input, *npu_sample.args, **npu_sample.kwargs)
            torch.npu.synchronize()
        except Exception as exc:  # noqa: BLE001
            error = exc
        result.fallback_ops = _delta(self.npu_emu.fallback_report(), fallback_before)
        result.native_ops = _delta(self.npu_emu.native_report(), native_before)
        result.native = not result.fallback_ops
        if error is not None:
            return done("errored", message=describe_exception(error))

        try:
            actual_cpu = to_cpu(actual)
        except Exception as exc:  # noqa: BLE001
            return done("errored", message=f"copying the result to CPU: {describe_exception(exc)}")
        if op_name in self.plant:
            actual_cpu = corrupt(actual_cpu)
        try:
            assert_matches(actual_cpu, to_cpu(expected), spec)
        except AssertionError as exc:
            failure = self._summation_bound_failure(
                op_name, dtype, exc, result, lambda: summation_bound.assert_forward_within_bound(
                    op, sample, actual_cpu, to_cpu(expected), dtype, spec.rtol, spec.atol))
            if failure:
                return done("failed", message=failure)
        except Exception as exc:  # noqa: BLE001  e.g. outputs of different structure
            return done("failed", message=describe_exception(exc))

        if grad:
            return self._check_grad(op, op_name, dtype, sample, npu_sample, expected, actual, spec, done, result)
        return done("passed")

    @staticmethod
    def _summation_bound_failure(op_name: str, dtype: Any, exc: AssertionError, result: Any,
                                 check: Callable[[], None]) -> str | None:
        """For a sum-of-products op (summation_bound.py): None when the result
        is within the summation-order bound of CPU's (the sample is marked as
        passing by it), else the failure message."""
        from npu_emu.conformance import summation_bound

        message = str(exc)[:2000]
        if not summation_bound.applies(op_name, dtype):
            return message
        try:
            check()
        except AssertionError as bound_exc:
            return f"{message}\nsummation-order bound: {bound_exc}"[:2000]
        result.summation_bound = True
        return None

    def _check_grad(self, op: Any, op_name: str, dtype: Any, sample: Any, npu_sample: Any, expected: Any,
                    actual: Any, spec: Any, done: Callable[..., Any], result: Any) -> Any:
        from npu_emu.conformance import summation_bound
        from npu_emu.conformance.compare import assert_matches, describe_exception
        from npu_emu.conformance.samples import differentiable_outputs, grad_inputs, to_cpu

        torch = self.torch
        cpu_inputs = grad_inputs(sample)
        try:
            cpu_outputs = differentiable_outputs(sample.output_process_fn_grad(expected))
            if not cpu_inputs or not cpu_outputs:
                return done("passed")
            generator = torch.Generator().manual_seed(1)
            grad_outputs = [torch.randn(o.shape, generator=generator, dtype=o.dtype) for o in cpu_outputs]
            cpu_grads = torch.autograd.grad(cpu_outputs, cpu_inputs, grad_outputs, allow_unused=True)
        except Exception:  # noqa: BLE001  no CPU gradient to compare with
            return done("passed")
        try:
            npu_outputs = differentiable_outputs(npu_sample.output_process_fn_grad(actual))
            npu_inputs = grad_inputs(npu_sample)
            # Each gradient on its output's device: a sample may move its result to CPU (`to`).
            npu_grads = torch.autograd.grad(npu_outputs, npu_inputs,
                                            [g.to(o.device) for g, o in zip(grad_outputs, npu_outputs)],
                                            allow_unused=True)
            torch.npu.synchronize()
            npu_grads_cpu = to_cpu(list(npu_grads))
        except Exception as exc:  # noqa: BLE001
            return done("errored", "grad", describe_exception(exc))
        try:
            assert_matches(npu_grads_cpu, list(cpu_grads), spec)
        except AssertionError as exc:
            failure = self._summation_bound_failure(
                op_name, dtype, exc, result, lambda: summation_bound.assert_grads_within_bound(
                    op, sample, grad_outputs, npu_grads_cpu, list(cpu_grads), dtype, spec.rtol, spec.atol))
            if failure:
                return done("failed", "grad", failure)
        except Exception as exc:  # noqa: BLE001
            return done("failed", "grad", str(exc)[:2000])
        return done("passed")


def worker_main(conn: Connection, log_path: str | None) -> None:
    """Entry point of a worker process (multiprocessing, spawn)."""
    if log_path:
        # Warnings and native messages go to a per-worker log, not the runner's terminal.
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    os.environ.setdefault("NPU_EMU_FALLBACK", "allow")
    import warnings

    warnings.simplefilter("ignore")
    executor = UnitExecutor()
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message[0] == "stop":
            return
        _, op_name, dtype_name, start = message
        try:
            executor.run(op_name, dtype_name, start, conn.send)
        except Exception as exc:  # noqa: BLE001  report it, keep serving
            from npu_emu.conformance.compare import describe_exception
            conn.send(("unit_error", describe_exception(exc)))
