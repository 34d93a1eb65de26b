"""complex32 (torch.chalf) on npu, where CPU supports it.

ACL has no complex32 data type, so npu copies of a chalf tensor that need
more than a byte copy (another layout, another dtype) work on its float16
(real, imag) pairs. These tests compare with CPU exactly: every value used
is representable in float16, and a conversion part by part is exact there.
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch

from conftest import make_tensor


def chalf_pair(shape: tuple[int, ...], seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """A CPU chalf tensor of small half-representable values and its npu copy."""
    parts = make_tensor((*shape, 2), torch.float32, seed).mul(4).round().div(4)
    cpu = torch.view_as_complex(parts).to(torch.chalf)
    return cpu, cpu.to("npu")


def same(npu: torch.Tensor, cpu: torch.Tensor) -> None:
    """npu equals cpu bit for bit in dtype, shape and values (chalf compared through complex64)."""
    got = npu.cpu()
    assert got.dtype == cpu.dtype and got.shape == cpu.shape
    wide = torch.complex64 if cpu.dtype == torch.chalf else cpu.dtype
    assert torch.equal(got.to(wide), cpu.to(wide))


LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "transpose": lambda t: t.t(),
    "narrow": lambda t: t.narrow(1, 1, 3),
    "step": lambda t: t[::2, 1::2],
    "expand": lambda t: t[:1].expand(5, 6),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_chalf_strided_views_copy_back_and_clone(layout):
    cpu, npu = chalf_pair((5, 6))
    view = LAYOUTS[layout]
    same(view(npu), view(cpu))
    same(view(npu).clone(), view(cpu).clone())
    same(view(npu).contiguous(), view(cpu).contiguous())


@pytest.mark.parametrize("other", [torch.complex64, torch.complex128, torch.float32, torch.float16, torch.int32])
def test_chalf_converts_like_cpu(other):
    cpu, npu = chalf_pair((4, 3), seed=1)
    same(npu.to(other), cpu.to(other))  # chalf -> other (a real dtype keeps the real part)
    src_cpu = cpu.to(torch.complex64).to(other)
    same(src_cpu.to("npu").to(torch.chalf), src_cpu.to(torch.chalf))  # other -> chalf


def test_chalf_copy_into_strided_destination():
    cpu, npu = chalf_pair((4, 6), seed=2)
    dst_cpu = torch.zeros(6, 4, dtype=torch.chalf)
    dst_npu = dst_cpu.to("npu")
    dst_cpu.t().copy_(cpu)
    dst_npu.t().copy_(npu)
    same(dst_npu, dst_cpu)
    # from host data of another dtype into a strided npu destination
    dst_npu.t().copy_(cpu.to(torch.complex128))
    same(dst_npu, dst_cpu)


def test_chalf_view_as_real_fill_cat_and_shape_ops():
    cpu, npu = chalf_pair((3, 4), seed=3)
    same(torch.view_as_real(npu.t()), torch.view_as_real(cpu.t()))
    same(torch.view_as_complex(torch.view_as_real(npu)), cpu)
    same(torch.cat([npu, npu.flip(0)], dim=1), torch.cat([cpu, cpu.flip(0)], dim=1))
    same(torch.stack([npu, npu]).permute(2, 0, 1).reshape(4, 6), torch.stack([cpu, cpu]).permute(2, 0, 1).reshape(4, 6))
    same(npu.clone().fill_(1.5 - 2j), cpu.clone().fill_(1.5 - 2j))
    same(npu.conj().resolve_conj(), cpu.conj().resolve_conj())
    same(npu[torch.tensor([2, 0], device="npu")], cpu[torch.tensor([2, 0])])


def test_chalf_random_fills_have_chalf_parts():
    torch.npu.manual_seed(7)
    z = torch.randn(4096, dtype=torch.chalf, device="npu")
    parts = torch.view_as_real(z).cpu().float()
    assert z.dtype == torch.chalf
    # each part N(0, 1/2): a loose bound on 4096 draws
    assert abs(parts.std().item() - 0.5 ** 0.5) < 0.05
    torch.npu.manual_seed(7)
    same(torch.randn(4096, dtype=torch.chalf, device="npu"), z.cpu())
