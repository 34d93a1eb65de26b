"""The threads that carry an hccl group's collectives, so that the caller's
thread and npu stream go on computing while bytes travel.

A collective call only records an event on the current stream of each npu
device it touches and queues a job. The issue thread takes jobs in call
order (every rank issues gloo's collectives in the same order): on a
communication stream per device it waits for that event, copies the inputs
to host memory and starts the gloo collective. The completion thread waits
for gloo in the same order, applies host-side steps (AVG's division), copies
results back on the communication stream and records an event there that
`work.wait()` makes the caller's current stream wait for. A caller that
waits before the completion thread got to its job completes it itself
(copying back on its current stream when that is idle).

A small collective whose inputs are already computed (their streams idle)
is issued on the calling thread, which costs less than waking the issue
thread; it completes when waited for, or on the completion thread once
`is_completed()` or `get_future()` asks.

Two threads, not one: a gloo send may not complete before the peer posts
its receive, which may be the next job of this rank (isend then irecv)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import torch
import torch.distributed as dist

from npu_emu.distributed.staging import CopyBack

if TYPE_CHECKING:
    from npu_emu.distributed.work import StagedWork

# Collectives at most this large (host bytes of their tensors) whose inputs
# are ready are issued on the calling thread.
INLINE_BYTES = 256 << 10

# What a job runs on the issue thread: stage the inputs, start gloo.
Issue = Callable[[], tuple["dist.Work | None", CopyBack]]


def npu_devices(tensors: Sequence[torch.Tensor]) -> list[int]:
    return sorted({t.device.index for t in tensors if t.device.type == "npu"})


class _Job:
    """One collective on its way: queued, issued (gloo started), completed."""

    def __init__(self, work: StagedWork, ready: dict[int, torch.Event | None], issue: Issue) -> None:
        self.work = work
        self.ready = ready
        self.issue = issue
        self.issued = threading.Event()
        self.gloo_work: dist.Work | None = None
        self.copy_back: CopyBack | None = None
        # Set (under CommWorker._claim_lock) by the one thread that completes it.
        self.claimed = False
        self.sent_to_completer = False


class CommWorker:
    def __init__(self, name: str) -> None:
        # One thread each. Executor threads, unlike daemon threads, are
        # joined before the interpreter finalizes (a daemon thread ended
        # inside PyTorch's C++ code aborts the process).
        self._issuer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-issue")
        self._completer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-complete")
        self._pending: deque[_Job] = deque()
        # Held while a job is issued: one at a time, in call order, by the
        # issue thread or (inline) by the calling thread.
        self._issue_lock = threading.Lock()
        self._claim_lock = threading.Lock()
        self._streams_lock = threading.Lock()
        self._comm_streams: dict[int, torch.Stream] = {}

    def submit(self, work: StagedWork, devices: list[int], staged_bytes: int, issue: Issue) -> None:
        """Called on the collective's thread: orders the job after the work
        already queued on the current stream of each of `devices`."""
        # An event only where the stream still has work: recording one on an
        # idle stream would cost a task (and a wake-up of its thread).
        ready: dict[int, torch.Event | None] = {}
        for index in devices:
            stream = torch.npu.current_stream(index)
            event = None
            if not stream.query():
                event = torch.Event(device=torch.device("npu", index))
                event.record(stream)
            ready[index] = event
        job = _Job(work, ready, issue)
        work._help = functools.partial(self._finish_on_caller, job)
        work._start_completion = functools.partial(self._complete_in_background, job)
        if staged_bytes <= INLINE_BYTES and all(event is None for event in ready.values()):
            # Inputs already computed and small: issuing here costs less than
            # waking the issue thread (which would contend for the GIL). The
            # job completes when waited for, or on the completion thread once
            # its future is asked for.
            with self._issue_lock:
                if not self._pending:
                    self._issue(job, background=False, on_caller=True)
                    return
        self._pending.append(job)
        self._issuer.submit(self._issue_next)

    def stop(self) -> None:
        """Jobs already queued still run."""
        self._issuer.shutdown(wait=False)
        self._completer.shutdown(wait=False)

    def _finish_on_caller(self, job: _Job) -> None:
        """What `wait()` does instead of idling until the completion thread
        gets there: completes `job` on the calling thread once it is issued
        (a job queued behind computing streams is issued by the issue thread,
        whose staging waits for them anyway)."""
        job.issued.wait()
        if self._claim(job):
            self._complete(job, on_caller=True)

    def _comm_stream(self, index: int) -> torch.Stream:
        """The group's communication stream on device `index`, one for all threads."""
        with self._streams_lock:
            stream = self._comm_streams.get(index)
            if stream is None:
                stream = self._comm_streams[index] = torch.npu.Stream(index)
            return stream

    @contextlib.contextmanager
    def _on_comm_streams(self, devices: Sequence[int]):
        """Makes this thread's current stream the communication stream of
        every device in `devices`."""
        with contextlib.ExitStack() as stack:
            for index in devices:
                stack.enter_context(torch.npu.stream(self._comm_stream(index)))
            yield

    def _claim(self, job: _Job) -> bool:
        with self._claim_lock:
            if job.claimed:
                return False
            job.claimed = True
            return True

    def _issue_next(self) -> None:
        with self._issue_lock:
            if self._pending:
                self._issue(self._pending.popleft(), background=True, on_caller=False)

    def _issue(self, job: _Job, background: bool, on_caller: bool) -> None:
        """Under _issue_lock. `background`: the completion thread completes
        the job unless a waiter does first."""
        try:
            # On the calling thread, inputs already computed are staged on
            # its current streams (idle then): no hop to another stream's thread.
            devices = [index for index, event in job.ready.items() if event is not None or not on_caller]
            with self._on_comm_streams(devices):
                for index, event in job.ready.items():
                    if event is not None:
                        self._comm_stream(index).wait_event(event)
                job.gloo_work, job.copy_back = job.issue()
        except BaseException as err:  # handed to the caller's wait()
            job.claimed = True
            job.work._finish(err, {})
            job.issued.set()
            return
        job.issued.set()
        if background:
            self._complete_in_background(job)

    def _complete_in_background(self, job: _Job) -> None:
        """Once per job (is_completed() may be polled)."""
        if not job.claimed and not job.sent_to_completer:
            job.sent_to_completer = True
            self._completer.submit(self._complete_if_unclaimed, job)

    def _complete_if_unclaimed(self, job: _Job) -> None:
        job.issued.wait()  # asked for (is_completed, get_future) while still queued
        if self._claim(job):
            self._complete(job, on_caller=False)

    def _complete(self, job: _Job, on_caller: bool) -> None:
        """The copy back runs on the communication streams, or on the
        caller's current streams when they are idle (no hop to another
        stream's thread; later work on them is ordered after it anyway)."""
        work = job.work
        done: dict[int, torch.Event] = {}
        try:
            if job.gloo_work is not None:
                try:
                    job.gloo_work.wait()
                except RuntimeError as err:
                    raise work._transport_error(err) from err
                work._gloo_finished(job.gloo_work)
            devices = [index for index in job.ready
                       if not (on_caller and torch.npu.current_stream(index).query())]
            with self._on_comm_streams(devices):
                job.copy_back.run()
                for index in devices:
                    stream = self._comm_stream(index)
                    if not stream.query():  # else nothing to order after
                        event = torch.Event(device=torch.device("npu", index))
                        event.record(stream)
                        done[index] = event
        except BaseException as err:
            work._finish(err, {})
            return
        finally:
            # gloo's work and the host buffers go as soon as they are done.
            job.gloo_work = job.copy_back = None
        work._finish(None, done)
