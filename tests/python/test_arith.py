"""add and mul run natively and match CPU: broadcasting, promotion, forms."""

import pytest
import torch

import npu_emu
from conftest import ALL_DTYPES, make_tensor

NUMERIC = [d for d in ALL_DTYPES if d != torch.bool]


def check(npu_result, cpu_result, dtype):
    assert npu_result.dtype == cpu_result.dtype
    if dtype in (torch.float16, torch.bfloat16):
        torch.testing.assert_close(npu_result.cpu(), cpu_result, rtol=0, atol=0)
    else:
        torch.testing.assert_close(npu_result.cpu(), cpu_result)


@pytest.mark.parametrize("op", [torch.add, torch.mul], ids=["add", "mul"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_same_dtype_matches_cpu(op, dtype):
    a, b = make_tensor((6, 5), dtype, 1), make_tensor((6, 5), dtype, 2)
    check(op(a.npu(), b.npu()), op(a, b), dtype)


@pytest.mark.parametrize("op", [torch.add, torch.mul], ids=["add", "mul"])
def test_broadcasting_and_large(op):
    a, b = torch.randn(300, 1, 70), torch.randn(40, 1)
    torch.testing.assert_close(op(a.npu(), b.npu()).cpu(), op(a, b))
    big_a, big_b = torch.randn(1 << 20), torch.randn(1 << 20)
    torch.testing.assert_close(op(big_a.npu(), big_b.npu()).cpu(), op(big_a, big_b))


@pytest.mark.parametrize("pair", [(torch.int32, torch.float32), (torch.uint8, torch.int8), (torch.bool, torch.int64),
                                  (torch.float16, torch.float32), (torch.bfloat16, torch.float16),
                                  (torch.int64, torch.complex64)], ids=str)
def test_type_promotion(pair):
    a, b = make_tensor((3, 4), pair[0], 3), make_tensor((4,), pair[1], 4)
    for op in (torch.add, torch.mul):
        r = op(a.npu(), b.npu())
        assert r.dtype == op(a, b).dtype
        torch.testing.assert_close(r.cpu(), op(a, b))


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_scalar_operands(dtype):
    a = make_tensor((5,), dtype, 5)
    for scalar in (3, 2.5, True):
        torch.testing.assert_close((a.npu() + scalar).cpu(), a + scalar)
        torch.testing.assert_close((a.npu() * scalar).cpu(), a * scalar)
        torch.testing.assert_close((scalar * a.npu()).cpu(), scalar * a)
    cpu_scalar_tensor = torch.tensor(4)
    torch.testing.assert_close((a.npu() * cpu_scalar_tensor).cpu(), a * cpu_scalar_tensor)


def test_alpha_inplace_and_out():
    a, b = torch.randn(4, 3), torch.randn(3)
    torch.testing.assert_close(torch.add(a.npu(), b.npu(), alpha=-2.5).cpu(), torch.add(a, b, alpha=-2.5))
    x = a.npu()
    x.add_(b.npu(), alpha=3)
    x.mul_(2)
    torch.testing.assert_close(x.cpu(), (a + 3 * b) * 2)
    out = torch.empty(4, 3, dtype=torch.float64, device="npu")
    torch.mul(a.npu(), b.npu(), out=out)
    torch.testing.assert_close(out.cpu(), (a * b).double())
    resized = torch.empty(0, device="npu")
    torch.add(a.npu(), 1, out=resized)
    torch.testing.assert_close(resized.cpu(), a + 1)
    # Into a strided view.
    base = torch.zeros(4, 6).npu()
    torch.add(a.npu(), b.npu(), out=base[:, ::2])
    torch.testing.assert_close(base.cpu()[:, ::2], a + b)


def test_bad_inputs_are_clear_errors():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        torch.add(torch.randn(2).npu(), 1, out=torch.empty(2, dtype=torch.int64, device="npu"))
    with pytest.raises(RuntimeError, match="must match the size|broadcast"):
        torch.ones(2).npu() + torch.ones(3).npu()
    with pytest.raises(RuntimeError, match="same device|Expected all tensors"):
        torch.ones(2).npu() + torch.ones(2)
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        torch.add(torch.ones(2).npu(), torch.ones(2).npu(), alpha=True)
    assert (torch.ones(2).npu() + 1).cpu().tolist() == [2.0, 2.0]


def test_add_and_mul_are_native():
    npu_emu.debug.reset_reports()
    a = torch.randn(8).npu()
    (a + a * 2).cpu()
    native = npu_emu.native_report()
    assert native.get("aclnnAdd", 0) >= 1 and native.get("aclnnMuls", 0) >= 1
    assert not any(name.startswith(("aten::add", "aten::mul")) for name in npu_emu.fallback_report())



def _fused(x: torch.Tensor, alpha: float, y: torch.Tensor) -> torch.Tensor:
    """fma(alpha, y, x) in float32 (alpha held in x's dtype first), rounded
    once to float32 and then to x's dtype: alpha * y is exact in float64; the
    fixed seeds below keep x + alpha*y clear of float64 double rounding."""
    al = torch.tensor(alpha, dtype=x.dtype).double()
    return (x.double() + al * y.double()).float().to(x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("alpha", [-0.01, 0.3, 1, -1, 2], ids=str)
def test_add_sub_alpha_rounds_once_on_every_layout(alpha, dtype):
    """add/sub with alpha on floats is one fused multiply-add in float (CPU's
    vector body) whatever path runs it: contiguous runs large enough to split
    across workers, in place (out aliases self), strided views and broadcast
    rows. alpha = +-1 is x +- y exactly, like CPU."""
    g = torch.Generator().manual_seed(5)
    a = torch.randn(180_000, generator=g).to(dtype)
    b = (torch.randn(180_000, generator=g) * 7).to(dtype)
    expected = _fused(a, alpha, b)
    assert torch.equal(torch.add(a.npu(), b.npu(), alpha=alpha).cpu(), expected)
    assert torch.equal(torch.sub(a.npu(), b.npu(), alpha=-alpha).cpu(), expected)
    x = a.npu()
    x.add_(b.npu(), alpha=alpha)
    assert torch.equal(x.cpu(), expected)
    # Strided: a transposed view; broadcast: one row against a matrix.
    m, n = a.view(300, 600), b.view(300, 600)
    assert torch.equal(torch.add(m.npu().t(), n.npu().t(), alpha=alpha).cpu(), _fused(m.t(), alpha, n.t()))
    row = n[0]
    assert torch.equal(torch.add(m.npu(), row.npu(), alpha=alpha).cpu(), _fused(m, alpha, row.expand(300, 600)))
    if alpha in (1, -1, 2):  # no rounding of alpha * b: CPU's result on any ISA
        assert torch.equal(torch.add(a.npu(), b.npu(), alpha=alpha).cpu(), torch.add(a, b, alpha=alpha))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_reduced_float_binary_ops_round_once_like_cpu(dtype):
    """Binary ops on half/bfloat16 compute in float and round once to the
    dtype (nearest even), in long vectorized runs, in place, and against a
    host scalar: bit-exact with CPU on finite values."""
    g = torch.Generator().manual_seed(11)
    a = (torch.randn(100_003, generator=g) * 50).to(dtype)
    b = (torch.randn(100_003, generator=g) * 3 + 0.5).to(dtype)
    for op in (torch.add, torch.sub, torch.mul, torch.div, torch.maximum):
        assert torch.equal(op(a.npu(), b.npu()).cpu(), op(a, b)), op
    for scalar in (0.999, -3.1):
        assert torch.equal((a.npu() * scalar).cpu(), a * scalar)
        assert torch.equal((a.npu() / scalar).cpu(), a / scalar)
    x = a.npu()
    x.mul_(b.npu()).add_(b.npu())
    assert torch.equal(x.cpu(), a * b + b)
