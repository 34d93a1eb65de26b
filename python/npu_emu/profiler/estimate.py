"""Estimated device time of one aten op on the emulated SoC: a roofline,
max(flops / unit peak, bytes / bandwidth) + a fixed launch cost per kernel
(the model and its limits: docs/device_time.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import flop_registry

from npu_emu.profiler.soc_perf import DevicePeaks

# Ops that move bytes between the host and the device (over the host link)
# or within the device (over HBM twice: read and write).
_COPY_OPS = {"copy_", "_to_copy", "clone", "_copy_from", "_copy_from_and_resize", "contiguous"}


@dataclass(frozen=True)
class OpCost:
    unit: str          # "cube", "vector", "hbm" (device copies), "host_link", "none" (no data touched)
    flops: float
    bytes: float
    itemsize: int

    def seconds(self, peaks: DevicePeaks) -> float:
        """The roofline time without the launch cost."""
        if self.unit == "host_link":
            return self.bytes / peaks.perf.host_link_bytes_per_s
        memory = self.bytes / peaks.perf.hbm_bytes_per_s
        if self.unit == "cube":
            return max(self.flops / peaks.cube_flops_per_s(self.itemsize), memory)
        if self.unit == "vector":
            return max(self.flops / peaks.vector_flops_per_s(self.itemsize), memory)
        return memory


def _tensors(tree: Any) -> list[torch.Tensor]:
    return [x for x in tree_flatten(tree)[0] if isinstance(x, torch.Tensor)]


def op_cost(func: Any, args: tuple, kwargs: dict, out: Any) -> OpCost:
    """FLOPs (PyTorch's own formulas for matmul/conv/attention, which run on
    the Cube; one per output or input element otherwise, on the Vector unit)
    and the bytes its tensors occupy (inputs read once, outputs written once)."""
    inputs = _tensors((args, kwargs))
    outputs = _tensors(out)
    everything = inputs + outputs
    nbytes = float(sum(t.numel() * t.element_size() for t in everything))
    itemsize = max((t.element_size() for t in everything if t.is_floating_point()), default=4)
    packet = getattr(func, "overloadpacket", None)
    name = getattr(packet, "__name__", str(func))
    if name in _COPY_OPS:
        devices = {t.device.type for t in everything}
        if len(devices) > 1:
            # Only the host->device or device->host leg; one side's bytes.
            return OpCost("host_link", 0.0, float(sum(t.numel() * t.element_size() for t in outputs)), itemsize)
        return OpCost("hbm", 0.0, nbytes, itemsize)
    formula = flop_registry.get(packet)
    if formula is not None:
        return OpCost("cube", float(formula(*args, **kwargs, out_val=out)), nbytes, itemsize)
    if not outputs and not inputs:
        return OpCost("none", 0.0, 0.0, itemsize)
    elements = max((t.numel() for t in everything), default=0)
    return OpCost("vector", float(elements), nbytes, itemsize)
