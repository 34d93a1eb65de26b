"""torch.equal and torch.max() on the real torch_npu run on aclnn
(aclnnEqual, aclnnMax: ops/table/torch_npu_extras.yaml). Were they missing,
torch_npu would take the legacy aclop path, which the stand-in refuses: these
tests would raise. (torch_npu's own TestCase compares tensors with them.)"""

import math

import pytest
import torch
import torch_npu  # noqa: F401


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool])
def test_equal(dtype):
    a = (torch.randn(4, 5) * 10).to(dtype)
    b = a.clone()
    assert torch.equal(a.npu(), b.npu())
    assert torch.equal(a.npu().t(), b.t().contiguous().npu())  # strided operand
    changed = b.clone()
    changed[3, 4] = 1 - changed[3, 4] if dtype != torch.bool else ~changed[3, 4]
    assert not torch.equal(a.npu(), changed.npu())
    assert not torch.equal(a.npu(), a[:3].npu())  # other shape
    assert torch.equal(a[:0].npu(), b[:0].npu())  # empty


def test_equal_follows_nan_rules():
    x = torch.tensor([1.0, math.nan]).npu()
    assert not torch.equal(x, x.clone())  # NaN != NaN, as on CPU


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int8])
def test_max_of_all_elements(dtype):
    cpu = (torch.randn(7, 9) * 50).to(dtype)
    assert torch.equal(cpu.npu().max().cpu(), cpu.max())
    assert torch.equal(cpu.npu().t().max().cpu(), cpu.max())
    assert cpu.npu().max().dim() == 0


def test_max_propagates_nan():
    assert math.isnan(torch.tensor([1.0, math.nan, 3.0]).npu().max().item())
