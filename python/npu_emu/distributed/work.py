"""The Work an hccl collective returns: gloo's work plus the copy back to npu."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

from npu_emu.distributed.staging import CopyBack


class HcclWorkError(RuntimeError):
    """A collective failed: a peer rank exited, timed out or disagreed."""


class StagedWork(dist._Work):
    """Waiting waits for gloo, then copies the results back to the npu
    tensors on the current npu stream: work queued after `wait()` on that
    stream sees them. The value of `get_future()` is `result`."""

    def __init__(self, name: str, rank: int, gloo_work: dist.Work | None, copy_back: CopyBack,
                 result: Any, keep_alive: Any = None) -> None:
        super().__init__()
        self._name = name
        self._rank = rank
        self._gloo_work = gloo_work
        self._copy_back = copy_back
        self._result = result
        # Host buffers gloo reads or writes must outlive its work.
        self._keep_alive = keep_alive
        self._done = False
        self._source: int | None = None

    def wait(self, timeout: timedelta | None = None) -> bool:
        if self._done:
            return True
        if self._gloo_work is not None:
            try:
                if timeout is None:
                    self._gloo_work.wait()
                else:
                    self._gloo_work.wait(timeout)
            except RuntimeError as err:
                raise HcclWorkError(
                    f"hccl (npu-emu, on gloo): {self._name} failed on rank {self._rank}; a peer rank has "
                    f"exited, timed out or called a different collective: {err}") from err
            if self._name == "recv_anysource":
                self._source = self._gloo_work._source_rank()
        self._copy_back.run()
        self._done = True
        self._keep_alive = None
        return True

    def is_completed(self) -> bool:
        return self._done

    def is_success(self) -> bool:
        return self._done

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
        """Completed when returned: the copy back to npu has to run on the
        caller's thread and stream, so there is no overlap to gain."""
        self.wait()
        future: torch.futures.Future = torch.futures.Future()
        future.set_result(self._result)
        return future


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
        self.wait()
        future: torch.futures.Future = torch.futures.Future()
        future.set_result(self._result)
        return future
