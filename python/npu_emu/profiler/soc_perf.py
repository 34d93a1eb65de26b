"""Throughput figures of each emulated SoC for the device-time estimate
(docs/device_time.md). Core counts come from the device (device_model/'s SoC
profiles, via torch.npu.get_device_properties); this table adds what the
emulator itself never needs: clock, per-core unit widths, HBM and host-link
bandwidth and a launch cost. Sources and which figures are assumptions:
docs/device_time.md."""

from __future__ import annotations

from dataclasses import dataclass

# Da Vinci core units (Huawei, "DaVinci: A Scalable Architecture for Neural
# Network Computing", Hot Chips 31, 2019): the Cube does a 16x16x16 float16
# matrix multiply-accumulate per cycle (4096 MACs = 8192 flops); the Vector
# unit is 2048 bits wide (128 float16 or 64 float32 lanes).
CUBE_FP16_FLOPS_PER_CYCLE = 2 * 16 * 16 * 16
VECTOR_BYTES_PER_CYCLE = 2048 // 8


@dataclass(frozen=True)
class SocPerf:
    clock_hz: float
    hbm_bytes_per_s: float
    host_link_bytes_per_s: float  # PCIe, for host<->device copies
    launch_s: float               # fixed cost of one task on the device


_GHz = 1e9
_TBps = 1e12
_GBps = 1e9

# Ascend 910 (A): 256 TFLOPS float16 with 32 cores (Hot Chips 31) -> 1.0 GHz;
# 4 HBM2 stacks, 1.2 TB/s; PCIe 4.0 x16 (~32 GB/s).
# Ascend 910B: 64 GB HBM2e at 1.6 TB/s, PCIe 5.0 x16 (~64 GB/s) as published
# for Atlas 800T A2 servers; the clock (1.8 GHz) is an assumption that puts a
# 20-core 910B3 near its published ~300 TFLOPS float16 class. The 910B4's
# 32 GB part and the 910_93 use the 910B figures unverified.
_PERF = {
    "Ascend910A": SocPerf(1.0 * _GHz, 1.2 * _TBps, 32 * _GBps, 3e-6),
    "Ascend910B1": SocPerf(1.8 * _GHz, 1.6 * _TBps, 64 * _GBps, 3e-6),
    "Ascend910B2": SocPerf(1.8 * _GHz, 1.6 * _TBps, 64 * _GBps, 3e-6),
    "Ascend910B3": SocPerf(1.8 * _GHz, 1.6 * _TBps, 64 * _GBps, 3e-6),
    "Ascend910B4": SocPerf(1.8 * _GHz, 1.6 * _TBps, 64 * _GBps, 3e-6),
    "Ascend910_9391": SocPerf(1.8 * _GHz, 1.6 * _TBps, 64 * _GBps, 3e-6),
}


@dataclass(frozen=True)
class DevicePeaks:
    """What the roofline divides by, for one SoC."""

    soc: str
    cube_cores: int
    vector_cores: int
    perf: SocPerf

    def cube_flops_per_s(self, itemsize: int) -> float:
        # float16/bfloat16 at the Cube's full rate; wider types are assumed
        # to take proportionally more passes (float32: 1/2, float64 has no
        # Cube path on the device and is modelled as float32's /2 again).
        return self.cube_cores * CUBE_FP16_FLOPS_PER_CYCLE * self.perf.clock_hz * 2 / max(itemsize, 2)

    def vector_flops_per_s(self, itemsize: int) -> float:
        lanes = VECTOR_BYTES_PER_CYCLE / max(itemsize, 1)
        return self.vector_cores * lanes * self.perf.clock_hz


def peaks(soc: str, cube_cores: int, vector_cores: int) -> DevicePeaks:
    """The figures for `soc`; raises ValueError naming the known SoCs."""
    perf = _PERF.get(soc)
    if perf is None or cube_cores <= 0:
        raise ValueError(f"no device-time figures for SoC {soc!r}; known: {', '.join(sorted(_PERF))}")
    return DevicePeaks(soc, cube_cores, vector_cores, perf)


def known_socs() -> list[str]:
    return sorted(_PERF)
