"""Runs units on a pool of worker processes with a per-sample timeout.

A sample that runs longer than the timeout, or crashes its worker, is
recorded as errored; the worker is replaced and the unit resumes at the next
sample, so one hang or crash costs one sample, not the run."""

from __future__ import annotations

import multiprocessing
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Callable

from npu_emu.conformance.plan import Unit
from npu_emu.conformance.results import SampleResult, UnitResult

# A worker imports torch, the backend and the OpInfo database before it is
# ready; on a loaded 2-core machine that can take a while.
STARTUP_TIMEOUT_S = 300.0
_POLL_S = 0.2
# A unit whose samples keep crashing or hanging would cost a worker restart
# (seconds: torch and the OpInfo database are imported again) per sample; after
# this many, the rest of the unit is not run.
MAX_ABORTS_PER_UNIT = 2


@dataclass
class _Job:
    unit: Unit
    result: UnitResult
    next_sample: int = 0
    aborts: int = 0


@dataclass
class _Worker:
    index: int
    process: multiprocessing.process.BaseProcess
    conn: Connection
    started: float
    ready: bool = False
    job: _Job | None = None
    sample: int | None = None  # index of the sample in flight
    sample_description: str = ""
    sample_started: float = 0.0
    restarts: int = field(default=0)


class Runner:
    def __init__(self, jobs: int, timeout_s: float, log_dir: Path | None,
                 on_unit_done: Callable[[UnitResult], None] | None = None) -> None:
        if jobs < 1:
            raise ValueError(f"-j/--jobs must be >= 1, got {jobs}")
        if timeout_s <= 0:
            raise ValueError(f"--timeout must be > 0 seconds, got {timeout_s}")
        self.jobs = jobs
        self.timeout_s = timeout_s
        self.log_dir = log_dir
        self.on_unit_done = on_unit_done or (lambda _: None)
        self._ctx = multiprocessing.get_context("spawn")  # never fork a process holding the npu runtime

    def _spawn(self, index: int) -> _Worker:
        from npu_emu.conformance.worker import worker_main

        parent, child = self._ctx.Pipe()
        log = str(self.log_dir / f"worker-{index}.log") if self.log_dir else None
        process = self._ctx.Process(target=worker_main, args=(child, log), daemon=True,
                                    name=f"npu-emu-conformance-{index}")
        process.start()
        child.close()
        return _Worker(index, process, parent, time.monotonic())

    @staticmethod
    def _kill(worker: _Worker) -> None:
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=10)
        worker.conn.close()

    def run(self, units: list[Unit]) -> list[UnitResult]:
        if self.log_dir:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        pending: deque[_Job] = deque(_Job(u, UnitResult(u.op, u.dtype)) for u in units)
        results: list[UnitResult] = []
        workers = [self._spawn(i) for i in range(min(self.jobs, max(1, len(units))))] if units else []
        try:
            while pending or any(w.job for w in workers):
                for w in workers:
                    if w.ready and w.job is None and pending:
                        w.job = pending.popleft()
                        w.conn.send(("unit", w.job.unit.op, w.job.unit.dtype, w.job.next_sample))
                for conn in wait([w.conn for w in workers], timeout=_POLL_S):
                    worker = next(w for w in workers if w.conn is conn)
                    self._drain(worker, results)
                for i, worker in enumerate(workers):
                    replacement = self._check_health(worker, results, pending)
                    if replacement:
                        workers[i] = replacement
        finally:
            for w in workers:
                try:
                    w.conn.send(("stop",))
                except (OSError, ValueError):
                    pass
            for w in workers:
                w.process.join(timeout=5)
                self._kill(w)
        return sorted(results, key=lambda r: r.key)

    def _drain(self, worker: _Worker, results: list[UnitResult]) -> None:
        """Handles every message the worker has sent so far."""
        try:
            while worker.conn.poll():
                self._receive(worker, worker.conn.recv(), results)
        except (EOFError, OSError):
            pass  # the process died; _check_health handles it

    def _receive(self, worker: _Worker, message: tuple, results: list[UnitResult]) -> None:
        kind = message[0]
        if kind == "ready":
            worker.ready = True
            return
        job = worker.job
        if job is None:
            return
        if kind == "meta":
            meta = message[1]
            job.result.rtol, job.result.atol = meta["rtol"], meta["atol"]
            job.result.tolerance_source = meta["tolerance_source"]
            job.result.grad_checked = meta["grad_checked"]
            job.result.skip_reason = meta["skip_reason"]
        elif kind == "begin":
            worker.sample, worker.sample_description = message[1], message[2]
            worker.sample_started = time.monotonic()
        elif kind == "sample":
            sample = SampleResult(**message[1])
            job.result.add_sample(sample)
            job.next_sample = sample.index + 1
            worker.sample = None
        elif kind in ("done", "unit_error"):
            if kind == "unit_error":
                job.result.add_sample(SampleResult(job.next_sample, "errored", message=message[1]))
            worker.job, worker.sample = None, None
            self._finish(job, results)

    def _finish(self, job: _Job, results: list[UnitResult]) -> None:
        job.result.finish()
        results.append(job.result)
        self.on_unit_done(job.result)

    def _check_health(self, worker: _Worker, results: list[UnitResult], pending: deque[_Job]) -> _Worker | None:
        """Replaces a worker that timed out on a sample or died."""
        if not worker.process.is_alive():
            self._drain(worker, results)  # what it sent before dying
        now = time.monotonic()
        timed_out = worker.sample is not None and now - worker.sample_started > self.timeout_s
        dead = not worker.process.is_alive()
        stuck_starting = not worker.ready and now - worker.started > STARTUP_TIMEOUT_S
        if not (timed_out or dead or stuck_starting):
            return None
        if stuck_starting and not dead:
            self._kill(worker)
            raise RuntimeError(f"conformance worker {worker.index} did not start within {STARTUP_TIMEOUT_S:.0f} s")
        if dead and not worker.ready:
            raise RuntimeError(f"conformance worker {worker.index} exited while starting "
                               f"(exit code {worker.process.exitcode}); see its log in the output directory")
        exit_code = worker.process.exitcode
        self._kill(worker)
        job = worker.job
        if job is not None:
            index = worker.sample if worker.sample is not None else job.next_sample
            if timed_out:
                message = f"timeout: the sample ran longer than {self.timeout_s:g} s"
            else:
                message = f"worker crashed (exit code {exit_code})"
            job.result.add_sample(SampleResult(index, "errored", message=message,
                                               description=worker.sample_description,
                                               duration_s=now - worker.sample_started if timed_out else 0.0))
            job.next_sample = index + 1
            job.aborts += 1
            if job.aborts < MAX_ABORTS_PER_UNIT:
                pending.appendleft(job)  # resume the unit after the bad sample
            else:
                job.result.skip_reason = (f"stopped after {job.aborts} crashed or timed-out samples; "
                                          f"later samples not run")
                self._finish(job, results)
        replacement = self._spawn(worker.index)
        replacement.restarts = worker.restarts + 1
        return replacement
