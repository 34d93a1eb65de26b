"""Tensor.set_ and is_set_to on npu: the same answers as on CPU."""

from __future__ import annotations

import pytest
import torch

import npu_emu


def set_to_answers(device: str) -> list[bool]:
    t1 = torch.arange(12.0, device=device).reshape(3, 4)
    answers = []
    t3 = torch.empty(0, device=device)
    t3.set_(t1)
    answers += [t3.is_set_to(t1), t1.is_set_to(t3)]
    # Same storage, different view: not set to each other.
    answers += [t1[1:].is_set_to(t1), t1.t().is_set_to(t1)]
    # Storage form with offset, sizes and strides.
    t4 = torch.empty(0, device=device)
    t4.set_(t1.untyped_storage(), 4, (2, 4), (4, 1))
    answers += [t4.is_set_to(t1[1:]), t4.is_set_to(t1)]
    t5 = torch.empty(0, device=device)
    t5.set_(t1.untyped_storage())
    answers += [t5.is_set_to(t1.flatten()), t5.is_set_to(t1)]
    # Equal values in another storage.
    answers += [t1.is_set_to(t1.clone()), t1.is_set_to(t1)]
    # An empty tensor, and set_() to nothing.
    e = torch.empty(0, device=device)
    answers += [e.is_set_to(torch.empty(0, device=device))]
    t3.set_()
    answers += [t3.is_set_to(t1), t3.numel() == 0]
    return answers


def test_is_set_to_matches_cpu():
    expected = set_to_answers("cpu")
    assert expected[:2] == [True, True]  # the report: t1.is_set_to(t3) after t3.set_(t1)
    assert set_to_answers("npu") == expected


def test_is_set_to_is_native():
    before = npu_emu.fallback_report().get("aten::is_set_to", 0)
    t = torch.ones(2, device="npu")
    assert t.is_set_to(t)
    assert npu_emu.fallback_report().get("aten::is_set_to", 0) == before


def test_set_shares_storage_and_writes_are_seen():
    t1 = torch.zeros(2, 3, device="npu")
    t3 = torch.empty(0, device="npu").set_(t1)
    t1.fill_(7.0)
    assert t3.is_set_to(t1)
    assert torch.equal(t3.cpu(), torch.full((2, 3), 7.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_is_set_to_across_dtypes(dtype):
    a = torch.zeros(4, dtype=dtype, device="npu")
    b = torch.empty(0, dtype=dtype, device="npu").set_(a)
    assert b.is_set_to(a) and a.is_set_to(b)
