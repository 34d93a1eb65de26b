"""c10d's dispatcher ops on npu tensors: refused with one clear error.

HcclProcessGroup serves torch.distributed's collectives from Python and from
C++ callers (DDP, functional collectives) through ProcessGroup's trampoline.
A call of a c10d op of the dispatcher itself (`torch.ops.c10d.*`, a
ProcessGroup method the trampoline does not forward, or any collective of a
plain gloo group on npu tensors) bypasses it and would reach gloo with npu
tensors, which gloo either refuses or reads without waiting for the npu
stream; it is stopped here instead, naming hccl."""

from __future__ import annotations

import warnings
from typing import Any, NoReturn

import torch

# The c10d ops that take tensors; each has a PrivateUse1 kernel in PyTorch
# that hands npu tensors to the backend registered for npu.
GUARDED_OPS = (
    "allreduce_", "allreduce_coalesced_", "allgather_", "_allgather_base_", "allgather_coalesced_",
    "allgather_into_tensor_coalesced_", "reduce_scatter_", "_reduce_scatter_base_",
    "reduce_scatter_tensor_coalesced_", "reduce_", "gather_", "scatter_", "alltoall_", "alltoall_base_",
    "broadcast_", "send", "recv_", "recv_any_source_",
)

_library: torch.library.Library | None = None


def _refusal(name: str):
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(
            f"c10d::{name} on npu tensors is not supported: it reached a backend that cannot read npu memory (a "
            "gloo group, or a direct torch.ops.c10d call); npu tensors need npu-emu's hccl process group, "
            "init_process_group('hccl') or backend='cpu:gloo,npu:hccl', and torch.distributed's collectives "
            "(dist.all_reduce, dist.all_gather_into_tensor, ...) or the functional collectives")
    return refuse


def install() -> None:
    global _library
    if _library is not None:
        return
    library = torch.library.Library("c10d", "IMPL")
    with warnings.catch_warnings():
        # Replacing PyTorch's PrivateUse1 kernels is the point.
        warnings.simplefilter("ignore")
        for name in GUARDED_OPS:
            if hasattr(torch.ops.c10d, name):
                library.impl(name, _refusal(name), "PrivateUse1")
    _library = library
