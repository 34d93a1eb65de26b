"""Shared fixtures: the backend is activated once per test process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import npu_emu  # noqa: F401  (activates the npu backend)

REPO = Path(__file__).resolve().parents[2]

ALL_DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
]


def make_tensor(shape, dtype, seed: int = 0) -> torch.Tensor:
    """A CPU tensor with varied values of `dtype` (no NaNs)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point or dtype.is_complex:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 10).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -1000), min(info.max, 1000), shape, generator=g, dtype=torch.int64).to(dtype)


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (for env-dependent behaviour)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NPU", "NPU_EMU_DEVICE_COUNT")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def delay_us():
    """Sets the emulator's per-kernel latency for one test, then clears it."""
    def set_delay(us: int) -> None:
        npu_emu._C._set_kernel_delay_us(us)
    yield set_delay
    npu_emu._C._set_kernel_delay_us(0)
    torch.npu.synchronize()


@pytest.fixture
def fallback_mode():
    """Sets the fallback mode for one test and restores the previous one."""
    previous = npu_emu._C._fallback_mode()
    yield npu_emu._C._set_fallback_mode
    npu_emu._C._set_fallback_mode(previous)
