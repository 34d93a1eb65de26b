"""torch.isclose/allclose, torch.isfinite, nonzero, boolean-mask indexing and
torch.unique on the real torch_npu run on CANN's aclnnIsClose, aclnnIsFinite,
aclnnNonzeroV2 / aclnnNonzero and aclnnUnique2 (ops/table/select_cann.yaml),
`scalar - tensor` and torch.rsub on aclnnRsubs / aclnnRsub (rsub_cann.yaml), torch.min()
on aclnnMin (reduce_cann.yaml),
and match CPU. Were they missing, torch_npu would take the legacy aclop path,
which the stand-in refuses: these tests would raise."""

import math

import pytest
import torch
import torch_npu  # noqa: F401

import _npu_emu_standin
from conftest import run_python

REAL_DTYPES = [torch.float32, torch.float16, torch.float64, torch.int64, torch.int32, torch.int8, torch.uint8,
               torch.bool]


def sample(dtype: torch.dtype, *shape: int) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    if dtype.is_floating_point:
        return (torch.randn(*shape) * 4).to(dtype)
    return torch.randint(0, 6, shape).to(dtype)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-8), (0.1, 0.5), (0.0, 0.0)])
def test_isclose_matches_cpu(dtype, rtol, atol):
    a = sample(dtype, 6, 7)
    b = a.clone()
    # Half the elements changed a little, some a lot.
    if dtype.is_floating_point:
        b[::2] = (b[::2].double() * 1.05 + 0.2).to(dtype)
    elif dtype != torch.bool:
        b[::2] = b[::2] + 1
    else:
        b[::2] = ~b[::2]
    expected = torch.isclose(a, b, rtol=rtol, atol=atol)
    assert torch.equal(torch.isclose(a.npu(), b.npu(), rtol=rtol, atol=atol).cpu(), expected)
    # Broadcast and a strided operand.
    assert torch.equal(torch.isclose(a.npu().t(), b[0].npu()[:6], rtol=rtol, atol=atol).cpu(),
                       torch.isclose(a.t(), b[0][:6], rtol=rtol, atol=atol))
    assert torch.allclose(a.npu(), a.clone().npu(), rtol=rtol, atol=atol)


def test_isclose_nan_and_inf_follow_the_definition():
    a = torch.tensor([math.nan, math.inf, -math.inf, math.inf, 1.0])
    b = torch.tensor([math.nan, math.inf, math.inf, 1.0, math.nan])
    # Infinities are close only to themselves; NaN only to NaN with equal_nan.
    assert torch.isclose(a.npu(), b.npu()).cpu().tolist() == [False, True, False, False, False]
    assert torch.isclose(a.npu(), b.npu(), equal_nan=True).cpu().tolist() == [True, True, False, False, False]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32,
                                   torch.bool])
def test_isfinite(dtype):
    x = sample(dtype, 5, 4)
    if dtype.is_floating_point:
        x[0, 0], x[1, 1], x[2, 2] = math.inf, -math.inf, math.nan
    expected = [[not (dtype.is_floating_point and (r, c) in {(0, 0), (1, 1), (2, 2)}) for c in range(4)]
                for r in range(5)]
    assert torch.isfinite(x.npu()).cpu().tolist() == expected
    assert torch.isfinite(x.npu().t()).cpu().tolist() == [list(r) for r in zip(*expected)]


@pytest.mark.parametrize("shape", [(13,), (4, 6), (2, 3, 5), ()])
def test_nonzero_and_mask_indexing(shape):
    x = torch.randint(0, 3, shape).float()
    mask = x > 0
    n = x.npu()
    assert torch.equal(n.nonzero().cpu(), x.nonzero())
    for got, want in zip(n.nonzero(as_tuple=True), x.nonzero(as_tuple=True)):
        assert torch.equal(got.cpu(), want)
    # torch_npu's advanced indexing turns a bool mask into indices with aclnnNonzeroV2.
    assert torch.equal(n[mask.npu()].cpu(), x[mask])
    if x.dim() >= 2:  # a strided source and mask
        assert torch.equal(n.transpose(0, -1)[mask.transpose(0, -1).npu()].cpu(), x.transpose(0, -1)[mask.transpose(0, -1)])
    y = n.clone()
    y[mask.npu()] = -1.0
    expected = x.clone()
    expected[mask] = -1.0
    assert torch.equal(y.cpu(), expected)


def test_nonzero_of_nothing():
    z = torch.zeros(3, 4).npu()
    assert z.nonzero().shape == (0, 2)
    assert z[z > 0].shape == (0,)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int32, torch.uint8, torch.bool])
@pytest.mark.parametrize("return_inverse, return_counts", [(False, False), (True, False), (False, True), (True, True)])
def test_unique_matches_cpu(dtype, return_inverse, return_counts):
    x = sample(dtype, 5, 7)
    got = torch.unique(x.npu(), return_inverse=return_inverse, return_counts=return_counts)
    want = torch.unique(x, return_inverse=return_inverse, return_counts=return_counts)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and torch.equal(g.cpu(), w)
    assert torch.equal(torch.unique(x.npu().t()).cpu(), torch.unique(x.t()))


def test_unique_keeps_each_nan():
    x = torch.tensor([2.0, math.nan, 1.0, math.nan, 2.0])
    values, inverse, counts = torch.unique(x.npu(), return_inverse=True, return_counts=True)
    assert values.cpu()[:2].tolist() == [1.0, 2.0] and values.cpu()[2:].isnan().tolist() == [True, True]
    assert inverse.cpu().tolist() == [1, 2, 0, 3, 1]
    assert counts.cpu().tolist() == [1, 2, 1, 1]


def test_these_ops_take_no_legacy_aclop_path(tmp_path):
    report = tmp_path / "report.txt"
    code = ("import torch, torch_npu\n"
            "x = torch.tensor([[1.0, float('inf'), 0.0], [2.0, 2.0, 0.0]]).npu()\n"
            "print(torch.isclose(x, x + 1e-9).all().item(), torch.isfinite(x).sum().item(),\n"
            "      x[x > 1].tolist(), x.nonzero().tolist(), torch.unique(x, return_counts=True)[1].tolist())\n")
    r = run_python(code, {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["True", "5", "[inf,", "2.0,", "2.0]", "[[0,", "0],", "[0,", "1],", "[1,", "0],",
                                "[1,", "1]]", "[2,", "1,", "2,", "1]"]
    parsed = _npu_emu_standin.read_report(report)
    assert parsed["aclop"] == {}
    assert not {"aclnnIsClose", "aclnnIsFinite", "aclnnNonzeroV2", "aclnnNonzero", "aclnnUnique2"} & set(
        parsed["missing-aclnn"])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int32])
def test_rsub_scalar_and_tensor(dtype):
    # `scalar - tensor` is rsub.Scalar (aclnnRsubs), torch.rsub(a, b, alpha) aclnnRsub.
    a, b = sample(dtype, 3, 4), sample(dtype, 4)
    assert torch.equal((5 - a.npu()).cpu(), 5 - a)
    assert torch.equal(torch.rsub(a.npu(), 2, alpha=3).cpu(), torch.rsub(a, 2, alpha=3))
    assert torch.equal(torch.rsub(a.npu(), b.npu(), alpha=2).cpu(), torch.rsub(a, b, alpha=2))
    assert torch.equal((2.5 - a.npu()).cpu(), 2.5 - a)  # promotes integers to float


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int8, torch.bool])
def test_min_of_all_elements(dtype):
    # torch.min() without dim is aclnnMin (reduce_cann.yaml).
    cpu = sample(dtype, 7, 9)
    assert torch.equal(cpu.npu().min().cpu(), cpu.min())
    assert torch.equal(cpu.npu().t().min().cpu(), cpu.min())
    assert math.isnan(torch.tensor([1.0, math.nan, -3.0]).npu().min().item())
