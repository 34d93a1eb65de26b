"""Private formats through the torch_npu API: layouts bit-exact against an
index map written from FORMATS.md, and torch_npu's rules."""

import pytest
import torch
import torch_npu

import npu_emu
from conftest import make_tensor


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def nc1hwc0_reference(x: torch.Tensor) -> torch.Tensor:
    """FORMATS.md: off = (((n*C1 + c/16)*H + h)*W + w)*16 + c%16, zero padded."""
    n, c, h, w = x.shape
    out = torch.zeros(n, cdiv(c, 16), h, w, 16, dtype=x.dtype)
    for ci in range(c):
        out[:, ci // 16, :, :, ci % 16] = x[:, ci]
    return out


def nz_reference(x: torch.Tensor, c0: int = 16) -> torch.Tensor:
    """FORMATS.md: pad to [..., M1*16, K1*C0], reshape [..., M1, 16, K1, C0], transpose to [..., K1, M1, 16, C0]."""
    *batch, m, k = x.shape
    m1, k1 = cdiv(m, 16), cdiv(k, c0)
    padded = torch.zeros(*batch, m1 * 16, k1 * c0, dtype=x.dtype)
    padded[..., :m, :k] = x
    return padded.reshape(*batch, m1, 16, k1, c0).transpose(-4, -2).transpose(-3, -2).contiguous()


def test_acceptance_nc1hwc0():
    x = torch.randn(2, 17, 5, 5)
    y = torch_npu.npu_format_cast(x.npu(), 3)
    assert torch_npu.get_npu_format(y) == 3
    data = npu_emu.storage_data(y)
    assert data.shape == (2, 2, 5, 5, 16)
    assert torch.equal(data, nc1hwc0_reference(x))  # every padded slot zero
    assert torch.equal(y.cpu(), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.int64], ids=str)
@pytest.mark.parametrize("shape", [(8, 100, 30), (1, 16, 16), (3, 1, 33)])
def test_fractal_nz_layout(dtype, shape):
    x = make_tensor(shape, dtype)
    y = torch_npu.npu_format_cast(x.npu(), torch_npu.Format.FRACTAL_NZ)
    c0 = 32 if dtype.itemsize == 1 else 16
    assert torch.equal(npu_emu.storage_data(y), nz_reference(x, c0))
    assert torch.equal(y.cpu(), x)
    assert torch_npu.get_storage_size(y) == nz_reference(x, c0).numel()


def test_published_shape_check():
    y = torch_npu.npu_format_cast(torch.randn(8, 100, 30).half().npu(), 29)
    assert tuple(npu_emu.storage_desc(y).storage_sizes) == (8, 2, 7, 16, 16)
    z = torch_npu.npu_format_cast(torch.randn(31, 17, 4, 4).npu(), 4)
    assert tuple(npu_emu.storage_desc(z).storage_sizes) == (32, 2, 16, 16)


def test_rules_clone_views_copies_and_relabel():
    x = torch.randn(2, 17, 5, 5)
    y = torch_npu.npu_format_cast(x.npu(), 3)
    assert torch_npu.get_npu_format(y.clone()) == 3
    assert torch.equal((y * 2).cpu(), x * 2)  # ops read the logical values
    h = torch_npu.npu_format_cast(torch.zeros(2, 17, 5, 5).npu(), 3)
    h.copy_(x)  # H2D keeps the destination's format
    assert torch_npu.get_npu_format(h) == 3 and torch.equal(h.cpu(), x)
    with pytest.warns(UserWarning, match="converts its storage to the base format"):
        v = y.view(2, -1)
    assert torch_npu.get_npu_format(y) == 0 and torch.equal(v.cpu(), x.view(2, -1))
    nd = torch.randn(2, 3, 4, 5).npu()
    assert torch_npu.get_npu_format(nd) == 0  # guessed from the rank
    assert torch_npu.get_npu_format(torch.randn(3, 4).npu()) == 2
    torch_npu.npu_format_cast_(nd, 2)  # base to base: a relabel
    assert torch_npu.get_npu_format(nd) == 2


def test_nz_below_2d_falls_back_with_a_warning():
    with pytest.warns(UserWarning):
        y = torch_npu.npu_format_cast(torch.randn(7).npu(), 29)
    assert torch_npu.get_npu_format(y) == 2


def test_allow_internal_format_governs_empty_with_format():
    old = torch.npu.config.allow_internal_format
    try:
        assert old is False  # Ascend910B1's default
        with pytest.warns(UserWarning, match="allow_internal_format"):
            e = torch_npu.empty_with_format((4, 16), dtype=torch.float32, device="npu", acl_format=29)
        assert torch_npu.get_npu_format(e) == 2
        kept = torch_npu.unsafe_empty_with_format((4, 16), device="npu", acl_format=29, keep_format=True)
        assert torch_npu.get_npu_format(kept) == 29
        torch.npu.config.allow_internal_format = True
        e = torch_npu.empty_with_format((4, 16), dtype=torch.float32, device="npu", acl_format=29)
        assert torch_npu.get_npu_format(e) == 29
    finally:
        torch.npu.config.allow_internal_format = old


def test_autograd_gradient_in_input_format():
    a = torch_npu.npu_format_cast(torch.randn(3, 4).npu(), 2).requires_grad_()
    b = torch_npu.npu_format_cast(a, 29)
    (b * 3).sum().backward()
    assert torch_npu.get_npu_format(a.grad) == 2
    assert torch.equal(a.grad.cpu(), torch.full((3, 4), 3.0))


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match=r"NDC1HWC0 \(32\).*\[2, 3, 4, 5\]"):
        torch_npu.npu_format_cast(torch.randn(2, 3, 4, 5).npu(), 32)
    with pytest.raises(ValueError, match="99"):
        torch_npu.npu_format_cast(torch.randn(2, 3).npu(), 99)
    with pytest.raises(RuntimeError, match="expects an npu tensor.*shape"):
        torch_npu.npu_format_cast(torch.randn(2, 3), 29)
    assert torch_npu.get_npu_format(torch.ones(2, 2).npu()) == 2  # still working
