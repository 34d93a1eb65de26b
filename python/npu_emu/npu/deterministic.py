"""torch.npu.enable/disable_deterministic_with_backward: identity functions
marking where deterministic algorithms start (or stop) in the forward pass;
the backward pass undoes the switch when its gradient flows through the mark,
so the backward of the marked region runs in the same mode."""

from __future__ import annotations

import torch

__all__ = ["disable_deterministic_with_backward", "enable_deterministic_with_backward"]


def _switching(forward_mode: bool) -> type[torch.autograd.Function]:
    class Switch(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            torch.use_deterministic_algorithms(forward_mode)
            return tensor.view_as(tensor)

        @staticmethod
        def backward(ctx, grad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            torch.use_deterministic_algorithms(not forward_mode)
            return grad

    return Switch


_Begin = _switching(True)
_End = _switching(False)


def enable_deterministic_with_backward(tensor: torch.Tensor) -> torch.Tensor:
    """`tensor`, unchanged; turns deterministic algorithms on now and off when
    the backward pass reaches this point."""
    return _Begin.apply(tensor)


def disable_deterministic_with_backward(tensor: torch.Tensor) -> torch.Tensor:
    """`tensor`, unchanged; turns deterministic algorithms off now and on when
    the backward pass reaches this point."""
    return _End.apply(tensor)
