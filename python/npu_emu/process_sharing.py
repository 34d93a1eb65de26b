"""npu tensors sent to another process (multiprocessing pickling).

torch.multiprocessing shares a CPU tensor's memory with the receiving process
and a CUDA tensor's through CUDA IPC; npu-emu emulates no IPC device memory,
and torch's own reducer, given an npu storage, fails deep inside
("_share_fd_: only available on CPU"). Sending a copy instead would silently
break the sharing semantics (in-place updates not seen by the other side), so
the send is refused with one error saying what to do instead.
"""

from __future__ import annotations

from collections.abc import Callable
from multiprocessing.reduction import ForkingPickler
from typing import Any

import torch
from torch.multiprocessing import reductions

MESSAGE = ("npu tensors and storages cannot be sent to another process: npu-emu emulates no shared (IPC) device "
           "memory. Send tensor.cpu() and move it to npu in the receiving process (a 'spawn' worker, or a child "
           "forked before this process used npu)")


def _refusing_npu(reduce: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def reduce_unless_npu(obj: Any) -> Any:
        if obj.device.type == "npu":
            raise RuntimeError(MESSAGE)
        return reduce(obj)

    return reduce_unless_npu


def install() -> None:
    """Registers, for each class torch.multiprocessing registers, its reducer
    behind the npu check (registration replaces: idempotent)."""
    for cls in torch._storage_classes:
        reduce = reductions.reduce_storage if cls.__name__ == "UntypedStorage" else reductions.reduce_typed_storage_child
        ForkingPickler.register(cls, _refusing_npu(reduce))
    ForkingPickler.register(torch.storage.TypedStorage, _refusing_npu(reductions.reduce_typed_storage))
    for cls in (*torch._tensor_classes, torch.Tensor, torch.nn.Parameter):
        ForkingPickler.register(cls, _refusing_npu(reductions.reduce_tensor))
