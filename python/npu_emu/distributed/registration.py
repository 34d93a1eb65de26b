"""Registers `hccl` with torch.distributed: `init_process_group("hccl")` and
`backend="cpu:gloo,npu:hccl"` both end in HcclProcessGroup."""

from __future__ import annotations

from datetime import timedelta

import torch.distributed as dist

BACKEND_NAME = "hccl"


def _create(store: dist.Store, rank: int, world_size: int, timeout: timedelta) -> dist.ProcessGroup:
    from npu_emu.distributed.process_group import HcclProcessGroup

    return HcclProcessGroup(store, rank, world_size, timeout)


def install() -> None:
    """Idempotent: a second activation must not register the name twice."""
    if not dist.is_available() or BACKEND_NAME in dist.Backend.backend_list:
        return
    dist.Backend.register_backend(BACKEND_NAME, _create, devices=["npu"])
    from npu_emu.distributed import dispatcher_guard

    dispatcher_guard.install()
