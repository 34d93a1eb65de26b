"""The Work an hccl collective returns, completed by the group's CommWorker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist


class HcclWorkError(RuntimeError):
    """A collective failed: a peer rank exited, timed out or disagreed."""


class StagedWork(dist._Work):
    """A collective carried by the group's CommWorker. The call returns at
    once; `wait()` blocks until the bytes have travelled and the results are
    back on the npu tensors, then makes the caller's current stream wait for
    that (work queued after `wait()` sees them). `get_future()` completes,
    with `result`, on the worker when the results are in npu memory."""

    def __init__(self, name: str, rank: int, result: Any) -> None:
        super().__init__()
        self._name = name
        self._rank = rank
        self._result = result
        self._finished = threading.Event()
        self._error: BaseException | None = None
        self._done_events: dict[int, torch.Event] = {}
        self._source: int | None = None
        self._future: torch.futures.Future = torch.futures.Future()
        # Set by CommWorker.submit: runs the rest of the job on the waiting thread.
        self._help: Callable[[], None] | None = None
        # Set by CommWorker.submit: hands the job to the completion thread.
        self._start_completion: Callable[[], None] | None = None

    # -- called by the worker ------------------------------------------------
    def _gloo_finished(self, gloo_work: dist.Work) -> None:
        if self._name == "recv_anysource":
            self._source = gloo_work._source_rank()

    def _transport_error(self, err: BaseException) -> HcclWorkError:
        """What gloo's failed wait becomes (argument errors raised while
        starting the collective keep their own type)."""
        error = HcclWorkError(
            f"hccl (npu-emu, on gloo): {self._name} failed on rank {self._rank}; a peer rank has "
            f"exited, timed out or called a different collective: {err}")
        error.__cause__ = err
        return error

    def _finish(self, error: BaseException | None, done_events: dict[int, torch.Event]) -> None:
        # The job (and through it gloo's work and the host buffers) is no
        # longer needed: dropping it here breaks the work <-> job cycle.
        self._help = self._start_completion = None
        self._error = error
        self._done_events = done_events
        self._finished.set()
        if error is None:
            self._future.set_result(self._result)
        else:
            self._future.set_exception(error)

    # -- the Work interface --------------------------------------------------
    def wait(self, timeout: timedelta | None = None) -> bool:
        # c10d passes a zero timeout (kNoTimeout) for "the group's own".
        seconds = timeout.total_seconds() if timeout else None
        if not self._finished.is_set():
            if seconds is None and self._help is not None:
                self._help()  # gloo's own timeout bounds it
            elif self._start_completion is not None:
                self._start_completion()
        if not self._finished.wait(seconds):
            raise HcclWorkError(f"hccl (npu-emu, on gloo): {self._name} on rank {self._rank} did not complete "
                                f"within {timeout}")
        if self._error is not None:
            raise self._error
        for index, event in self._done_events.items():
            torch.npu.current_stream(index).wait_event(event)
        return True

    def is_completed(self) -> bool:
        if not self._finished.is_set() and self._start_completion is not None:
            self._start_completion()  # a job issued on the caller completes once asked about
        return self._finished.is_set()

    def is_success(self) -> bool:
        return self._finished.is_set() and self._error is None

    def exception(self) -> BaseException | None:
        return self._error

    def result(self) -> Any:
        self.wait()
        return self._result

    def _source_rank(self) -> int:
        self.wait()
        if self._source is None:
            raise RuntimeError(f"hccl (npu-emu): {self._name} has no source rank; only recv from any source has one")
        return self._source

    def source_rank(self) -> int:
        return self._source_rank()

    def get_future(self) -> torch.futures.Future:
        """Its consumers need no stream ordering: the worker has copied the
        results into npu memory, synchronously, before completing it."""
        if not self._finished.is_set() and self._start_completion is not None:
            self._start_completion()
        return self._future


class CombinedWork(dist._Work):
    """Several staged works (a coalesced call) completing as one."""

    def __init__(self, works: list[StagedWork], result: Any) -> None:
        super().__init__()
        self._works = works
        self._result = result

    def wait(self, timeout: timedelta | None = None) -> bool:
        for work in self._works:
            work.wait(timeout)
        return True

    def is_completed(self) -> bool:
        return all(work.is_completed() for work in self._works)

    def is_success(self) -> bool:
        return self.is_completed()

    def result(self) -> Any:
        self.wait()
        return self._result

    def get_future(self) -> torch.futures.Future:
        result = self._result
        return torch.futures.collect_all([w.get_future() for w in self._works]).then(lambda _: result)
