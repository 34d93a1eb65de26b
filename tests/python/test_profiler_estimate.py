"""The device-time estimate (docs/device_time.md): a roofline over the SoC's
Cube/Vector peaks and HBM / host-link bandwidth, plus a launch cost."""

from __future__ import annotations

import pytest
import torch

import npu_emu.profiler
from npu_emu.profiler.estimate import op_cost
from npu_emu.profiler.soc_perf import peaks

aten = torch.ops.aten


def _meta(*shape, dtype=torch.float16):
    return torch.empty(*shape, dtype=dtype, device="meta")


def _soc():
    return peaks("Ascend910B1", 24, 48)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_gemm_estimate_scales_with_its_flops(dtype):
    soc = _soc()
    costs = []
    for m in (4096, 8192, 16384):
        a, b = _meta(m, 4096, dtype=dtype), _meta(4096, 4096, dtype=dtype)
        cost = op_cost(aten.mm.default, (a, b), {}, _meta(m, 4096, dtype=dtype))
        assert cost.unit == "cube"
        assert cost.flops == 2 * m * 4096 * 4096
        # Compute-bound at these sizes: the time is the FLOPs over the peak.
        assert cost.flops / soc.cube_flops_per_s(cost.itemsize) > cost.bytes / soc.perf.hbm_bytes_per_s
        costs.append(cost)
    for small, large in zip(costs, costs[1:]):
        assert large.seconds(soc) / small.seconds(soc) == pytest.approx(large.flops / small.flops)


def test_large_copy_estimate_scales_with_its_bytes():
    soc = _soc()
    device_copies = []
    host_copies = []
    for n in (1 << 24, 1 << 25, 1 << 26):
        dst, src = _meta(n), _meta(n)
        device_copies.append(op_cost(aten.copy_.default, (dst, src), {}, dst))
        host_copies.append(op_cost(aten._to_copy.default, (_meta(n),), {}, torch.empty(n, dtype=torch.float16)))
    for costs, unit, bandwidth in ((device_copies, "hbm", soc.perf.hbm_bytes_per_s),
                                   (host_copies, "host_link", soc.perf.host_link_bytes_per_s)):
        for c in costs:
            assert c.unit == unit and c.flops == 0
            assert c.seconds(soc) == pytest.approx(c.bytes / bandwidth)
        for small, large in zip(costs, costs[1:]):
            assert large.bytes == 2 * small.bytes
            assert large.seconds(soc) == pytest.approx(2 * small.seconds(soc))


def test_elementwise_estimate_is_memory_bound_on_the_vector_unit():
    soc = _soc()
    x = _meta(1 << 20, dtype=torch.float32)
    cost = op_cost(aten.add.Tensor, (x, x), {}, x)
    assert cost.unit == "vector" and cost.flops == 1 << 20
    assert cost.seconds(soc) == pytest.approx(3 * 4 * (1 << 20) / soc.perf.hbm_bytes_per_s)


def test_profiled_gemms_carry_estimates_in_flops_order():
    # On the emulator: the larger GEMM's kernel carries the larger estimate,
    # and every estimate includes the launch cost.
    a = torch.randn(64, 256).npu()
    b = torch.randn(256, 256).npu()
    c = torch.randn(256, 512).npu()
    with npu_emu.profiler.profile(soc="Ascend910B1") as prof:
        torch.mm(a, b)
        torch.mm(b, c)
    mms = [t for t in prof.tasks if t.name == "aclnnMm"]
    assert [t.op.cost.flops for t in mms] == [2 * 64 * 256 * 256, 2 * 256 * 256 * 512]
    launch_us = prof.peaks.perf.launch_s * 1e6
    assert launch_us < mms[0].estimated_us < mms[1].estimated_us
