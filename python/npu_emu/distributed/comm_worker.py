"""The threads that carry an hccl group's collectives, so that the caller's
thread and npu stream go on computing while bytes travel.

A collective call only records an event on the current stream of each npu
device it touches and queues a job. The issue thread takes jobs in call
order (every rank issues gloo's collectives in the same order): on a
communication stream per device it waits for that event, copies the inputs
to host memory and starts the gloo collective. The completion thread waits
for gloo in the same order, applies host-side steps (AVG's division), copies
results back on the communication stream and records an event there that
`work.wait()` makes the caller's current stream wait for.

Two threads, not one: a gloo send may not complete before the peer posts
its receive, which may be the next job of this rank (isend then irecv)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import torch
import torch.distributed as dist

from npu_emu.distributed.staging import CopyBack

if TYPE_CHECKING:
    from npu_emu.distributed.work import StagedWork

# What a job runs on the issue thread: stage the inputs, start gloo.
Issue = Callable[[], tuple["dist.Work | None", CopyBack]]


def npu_devices(tensors: Sequence[torch.Tensor]) -> list[int]:
    return sorted({t.device.index for t in tensors if t.device.type == "npu"})


class CommWorker:
    def __init__(self, name: str) -> None:
        # One thread each: jobs run in submission order. Executor threads,
        # unlike daemon threads, are joined before the interpreter finalizes
        # (a daemon thread ended inside PyTorch's C++ code aborts the process).
        self._issuer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-issue")
        self._completer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-complete")
        self._comm_streams: dict[int, torch.Stream] = {}

    def submit(self, work: StagedWork, devices: list[int], issue: Issue) -> None:
        """Called on the collective's thread: orders the job after the work
        already queued on the current stream of each of `devices`."""
        ready = {}
        for index in devices:
            event = torch.Event(device=torch.device("npu", index))
            event.record(torch.npu.current_stream(index))
            ready[index] = event
        self._issuer.submit(self._issue, work, ready, issue)

    def stop(self) -> None:
        """Jobs already queued still run."""
        self._issuer.shutdown(wait=False)
        self._completer.shutdown(wait=False)

    @contextlib.contextmanager
    def _on_comm_streams(self, devices: Sequence[int]):
        """Makes this thread's current stream the communication stream of
        every device in `devices`."""
        with contextlib.ExitStack() as stack:
            for index in devices:
                stream = self._comm_streams.get(index)
                if stream is None:
                    stream = self._comm_streams[index] = torch.npu.Stream(index)
                stack.enter_context(torch.npu.stream(stream))
            yield

    def _issue(self, work: StagedWork, ready: dict[int, torch.Event], issue: Issue) -> None:
        try:
            with self._on_comm_streams(list(ready)):
                for index, event in ready.items():
                    self._comm_streams[index].wait_event(event)
                gloo_work, copy_back = issue()
        except BaseException as err:  # handed to the caller's wait()
            work._finish(err, {})
            return
        self._completer.submit(self._complete, work, list(ready), gloo_work, copy_back)

    def _complete(self, work: StagedWork, devices: list[int], gloo_work: dist.Work | None,
                  copy_back: CopyBack) -> None:
        done: dict[int, torch.Event] = {}
        try:
            if gloo_work is not None:
                try:
                    gloo_work.wait()
                except RuntimeError as err:
                    raise work._transport_error(err) from err
                work._gloo_finished(gloo_work)
            with self._on_comm_streams(devices):
                copy_back.run()
                for index in devices:
                    event = torch.Event(device=torch.device("npu", index))
                    event.record(self._comm_streams[index])
                    done[index] = event
        except BaseException as err:
            work._finish(err, {})
            return
        work._finish(None, done)
