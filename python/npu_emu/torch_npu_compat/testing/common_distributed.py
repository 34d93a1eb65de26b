"""torch_npu.testing.common_distributed: skip decorators and process-group
set-up of torch_npu's distributed tests."""

from __future__ import annotations

import functools
import unittest
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

__all__ = ["TEST_SKIPS", "TestSkip", "init_pg", "skipIfUnsupportMultiNPU", "with_comms"]

TestSkip = namedtuple("TestSkip", "exit_code, message")
TEST_SKIPS = {
    "multi-npu": TestSkip(75, "Multi-NPU condition not satisfied"),
    **{f"multi-npu-{n}": TestSkip(75, f"Need at least {n} ASCEND devices") for n in range(1, 9)},
    "hccl": TestSkip(76, "c10d not compiled with HCCL support"),
    "known_issues": TestSkip(77, "Test skipped due to known issues"),
}


def skipIfUnsupportMultiNPU(npu_number_needed: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Skips the test unless at least `npu_number_needed` npu devices are visible
    (NPU_EMU_DEVICE_COUNT sets how many npu-emu shows)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run_if_enough(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not torch.npu.is_available() or torch.npu.device_count() < npu_number_needed:
                raise unittest.SkipTest(f"Multi-NPU {npu_number_needed} condition not satisfied")
            return fn(self, *args, **kwargs)

        return run_if_enough

    return decorate


def init_pg(backend: str = "hccl", world_size: int = 1, rank: int = 0, file_name: str = "file://") -> None:
    if backend not in ("hccl", "gloo"):
        raise RuntimeError(f"Backend {backend} not supported! allowed: hccl, gloo")
    if backend == "hccl" and torch.npu.device_count() < world_size:
        raise RuntimeError(TEST_SKIPS[f"multi-npu-{world_size}"].message)
    dist.init_process_group(backend=backend, world_size=world_size, rank=rank, init_method=f"file://{file_name}")
    if backend == "hccl":
        torch.npu.set_device(rank)


def with_comms(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Runs the test method inside a process group of self.world_size ranks
    (hccl when enough npu devices are visible, else gloo)."""

    @functools.wraps(fn)
    def run_with_group(self: Any, *args: Any, **kwargs: Any) -> None:
        use_npu = torch.npu.is_available() and torch.npu.device_count() >= self.world_size
        init_pg("hccl" if use_npu else "gloo", world_size=self.world_size, rank=self.rank, file_name=self.file_name)
        torch.npu.manual_seed(0)
        fn(self, *args, **kwargs)
        self.destroy_pg()

    return run_with_group
