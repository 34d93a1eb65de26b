"""Comparing an npu result with CPU's: same device kind, dtype and shape, values
within a per-dtype tolerance, for the op test files that share that rule."""

from __future__ import annotations

import torch

Tolerances = dict[torch.dtype, tuple[float, float]]


def assert_matches_cpu(npu_result: torch.Tensor, cpu_result: torch.Tensor, tolerances: Tolerances,
                       ulps_of_largest: int = 0) -> None:
    """npu_result is on npu and equals cpu_result within tolerances[dtype] (rtol, atol).

    ulps_of_largest > 0 widens atol, for float16/bfloat16, to that many ulps of
    the result's largest value: results that cancel (g - exp(y) * sum(g)) can
    lose all of a small value to an ulp of the largest term.
    """
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    rtol, atol = tolerances[cpu_result.dtype]
    if ulps_of_largest and cpu_result.dtype in (torch.float16, torch.bfloat16) and cpu_result.numel() > 0:
        largest = cpu_result.float().abs().nan_to_num(0, 0, 0).max().item()
        atol = max(atol, ulps_of_largest * torch.finfo(cpu_result.dtype).eps * largest)
    torch.testing.assert_close(npu_result.cpu(), cpu_result, rtol=rtol, atol=atol, equal_nan=True)


def seeded_randn(shape, dtype: torch.dtype, seed: int = 0, scale: float = 3.0, offset: float = 0.0) -> torch.Tensor:
    """Normal values * scale + offset drawn in float64 from `seed`, then rounded to dtype."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale + offset).to(dtype)
