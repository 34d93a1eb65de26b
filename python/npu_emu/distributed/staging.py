"""Host copies of npu tensors for gloo, and the way back.

The group's CommWorker takes these copies on its communication stream, after
the work queued before the collective on the tensor's stream (gloo reads host
memory on its own threads); results return to the npu tensors before the
collective's work counts as complete."""

from __future__ import annotations

from collections.abc import Callable

import torch


def is_npu(tensor: torch.Tensor) -> bool:
    return tensor.device.type == "npu"


def to_host(tensor: torch.Tensor) -> torch.Tensor:
    """A contiguous host tensor gloo may read and write; a host tensor given
    by the user is used as is (gloo then works on it in place)."""
    if not is_npu(tensor):
        return tensor
    return tensor.detach().to("cpu").contiguous()


def host_like(tensor: torch.Tensor) -> torch.Tensor:
    """An output buffer on the host for an npu output tensor."""
    if not is_npu(tensor):
        return tensor
    return torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu")


class CopyBack:
    """Pending host -> npu copies, done once when the work completes."""

    def __init__(self) -> None:
        self._pairs: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._post: list[Callable[[], None]] = []

    def add(self, target: torch.Tensor, host: torch.Tensor) -> None:
        if target is not host:
            self._pairs.append((target, host))

    def before_copy(self, action: Callable[[], None]) -> None:
        """A host-side step (AVG's division ...) applied before copying back."""
        self._post.append(action)

    def run(self) -> None:
        for action in self._post:
            action()
        for target, host in self._pairs:
            with torch.no_grad():
                target.copy_(host)
        self._pairs.clear()
        self._post.clear()
