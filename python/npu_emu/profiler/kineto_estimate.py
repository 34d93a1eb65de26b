"""The estimated device time for torch.profiler's npu tasks (the kineto
plugin, dispatch/profiler/kineto_plugin.cpp): the plugin collects each aten
op's FLOPs and bytes and asks here, once per trace, for the roofline times on
the device's SoC, so both profilers use one model and one set of figures
(estimate.OpCost, soc_perf; docs/device_time.md)."""

from __future__ import annotations

import torch

from npu_emu.profiler.estimate import OpCost
from npu_emu.profiler.soc_perf import peaks


def estimates(device: int, costs: list[tuple[str, float, float, int]]) -> tuple[str, float, list[float]] | None:
    """For `device`'s SoC: (its name, the launch cost of one task in us, each
    op's roofline time in us for `costs` = [(unit, flops, bytes, itemsize)]);
    None when the SoC has no figures (a trace without estimates)."""
    props = torch.npu.get_device_properties(device)
    try:
        figures = peaks(props.name, int(props.cube_core_num), int(props.vector_core_num))
    except ValueError:
        return None
    op_us = [OpCost(unit, float(flops), float(nbytes), int(itemsize)).seconds(figures) * 1e6
             for unit, flops, nbytes, itemsize in costs]
    return figures.soc, figures.perf.launch_s * 1e6, op_us
