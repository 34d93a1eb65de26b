"""Every ReduceOp on gloo: gloo has no AVG and no PREMUL_SUM, so both become
SUM with a host-side step (division after, scaling before)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.distributed as dist

_RedOpType = dist.ReduceOp.RedOpType
_GLOO_NATIVE = {_RedOpType.SUM, _RedOpType.PRODUCT, _RedOpType.MIN, _RedOpType.MAX,
                _RedOpType.BAND, _RedOpType.BOR, _RedOpType.BXOR}


class ReduceSpec:
    """What an op asks for, copied out of the options: gloo gets its own op
    written into those options afterwards."""

    def __init__(self, op: dist.ReduceOp) -> None:
        self.kind = op.op if isinstance(op, dist.ReduceOp) else op
        self.factor = op.factor if self.kind == _RedOpType.PREMUL_SUM else None


def gloo_op(spec: ReduceSpec) -> dist.ReduceOp:
    """The op gloo runs for `spec`."""
    kind = spec.kind
    if kind in _GLOO_NATIVE:
        return dist.ReduceOp(kind)
    if kind in (_RedOpType.AVG, _RedOpType.PREMUL_SUM):
        return dist.ReduceOp(_RedOpType.SUM)
    raise ValueError(f"hccl (npu-emu): reduce op {kind} is not supported; use one of "
                     f"{', '.join(t.name for t in _RedOpType.__members__.values())}")


def prescale(spec: ReduceSpec, host_inputs: Sequence[torch.Tensor]) -> None:
    """PREMUL_SUM multiplies each rank's input by the op's factor first."""
    if spec.kind != _RedOpType.PREMUL_SUM:
        return
    factor = spec.factor
    if isinstance(factor, torch.Tensor):
        factor = factor.to("cpu")
    for tensor in host_inputs:
        tensor.mul_(factor)


def postscale(spec: ReduceSpec, host_results: Sequence[torch.Tensor], world_size: int) -> None:
    """AVG divides the sum by the number of ranks (integers: truncated, as
    the HCCL/NCCL average of integers)."""
    if spec.kind != _RedOpType.AVG:
        return
    for tensor in host_results:
        if tensor.dtype.is_floating_point or tensor.dtype.is_complex:
            tensor.div_(world_size)
        elif tensor.dtype == torch.bool:
            raise TypeError("hccl (npu-emu): ReduceOp.AVG is not defined for torch.bool tensors; use MAX or MIN")
        else:
            tensor.div_(world_size, rounding_mode="trunc")
