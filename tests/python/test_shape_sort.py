"""Shape-and-copy ops (cat, stack, flip, roll, repeat, tril, triu) and the sort
family (sort, argsort, topk) run natively on npu and match CPU.

Tolerances: none. These ops move values without arithmetic (cat/stack convert
dtypes exactly as CPU does), and every npu sort is stable, so values and
indices must equal CPU's exactly; CPU's sorts are compared with stable=True
wherever ties occur. Every test forbids the CPU fallback (native_only).
"""

from __future__ import annotations

import pytest
import torch

import npu_emu
from conftest import ALL_DTYPES, make_tensor
from native_guard import assert_not_in_fallback, native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")


def equal(npu_result, cpu_result):
    if isinstance(cpu_result, tuple):
        assert len(npu_result) == len(cpu_result)
        for a, b in zip(npu_result, cpu_result):
            equal(a, b)
        return
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    assert torch.equal(npu_result.cpu(), cpu_result) or torch.allclose(
        npu_result.cpu(), cpu_result, rtol=0, atol=0, equal_nan=True)


def same_as_cpu(fn, *xs):
    """fn on npu tensors gives CPU's result exactly, or raises CPU's exception type."""
    try:
        expected = fn(*xs)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(*[x.npu() for x in xs])
        return
    result = fn(*[x.npu() for x in xs])
    equal(tuple(result) if isinstance(expected, tuple) else result, tuple(expected) if isinstance(expected, tuple)
          else expected)


SHAPE_OPS = {
    "cat0": lambda x: torch.cat([x, x[:1], x], 0),
    "cat-1": lambda x: torch.cat([x, x[..., :2]], -1),
    "stack0": lambda x: torch.stack([x, x], 0),
    "stack-1": lambda x: torch.stack([x, x, x], -1),
    "flip": lambda x: x.flip(0, -1),
    "flip1": lambda x: x.flip(1),
    "roll_flat": lambda x: x.roll(3),
    "roll_dims": lambda x: x.roll((1, -2), (0, 2)),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "repeat_lead": lambda x: x.repeat(2, 1, 1, 2),
    "tril": lambda x: x.tril(),
    "triu": lambda x: x.triu(1),
    "tril_neg": lambda x: x.tril(-2),
}


@pytest.mark.parametrize("op", list(SHAPE_OPS), ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_shape_ops_match_cpu(op, dtype):
    x = make_tensor((3, 4, 5), dtype, seed=1)
    same_as_cpu(SHAPE_OPS[op], x)
    same_as_cpu(SHAPE_OPS[op], x.transpose(0, 2)[1:, ::2])  # non-contiguous


@pytest.mark.parametrize("op", list(SHAPE_OPS), ids=str)
def test_shape_ops_empty(op):
    same_as_cpu(SHAPE_OPS[op], torch.empty(3, 0, 4))


def test_0dim_and_large():
    s = torch.tensor(2.5)
    for fn in (lambda t: t.flip(0), lambda t: t.roll(1), lambda t: t.repeat(3, 2), lambda t: t.repeat(()),
               lambda t: torch.stack([t, t]), lambda t: t.sort(), lambda t: t.topk(1), lambda t: t.argsort()):
        same_as_cpu(fn, s)
    big = torch.randn(1 << 20)
    for fn in (lambda t: torch.cat([t, t]), lambda t: t.flip(0), lambda t: t.roll(12345),
               lambda t: t.view(1024, 1024).tril(), lambda t: t.view(1024, 1024).sort(dim=1, stable=True),
               lambda t: t.topk(100), lambda t: t.view(512, 2048).repeat(1, 2)):
        same_as_cpu(fn, big)


def test_cat_stack_promotion_and_legacy_empties():
    a, b = make_tensor((2, 3), torch.int32, 1), make_tensor((1, 3), torch.float16, 2)
    same_as_cpu(lambda x, y: torch.cat([x, y]), a, b)
    same_as_cpu(lambda x, y: torch.stack([x, x.to(torch.int64)], 1), a, b)
    same_as_cpu(lambda x, y: torch.cat([x, y.new_empty(0), x], 0), a, b)
    same_as_cpu(lambda x, y: torch.cat([y.new_empty(0), y.new_empty(0)]), a, b)


def test_out_and_in_place_forms():
    x = make_tensor((4, 5), torch.float32, 3)
    d = x.npu()
    for fn in (lambda t, o: torch.cat([t, t], 1, out=o), lambda t, o: torch.stack([t, t], out=o),
               lambda t, o: torch.tril(t, out=o), lambda t, o: torch.triu(t, -1, out=o)):
        o = torch.empty(0, device="npu")
        assert fn(d, o) is o
        equal(o, fn(x, torch.empty(0)))
    wide = torch.empty(0, dtype=torch.float64, device="npu")  # converted like CPU
    torch.cat([d, d], out=wide)
    equal(wide, torch.cat([x, x], out=torch.empty(0, dtype=torch.float64)))
    t = d.clone()
    t.tril_(1)
    equal(t, x.tril(1))
    t = d.clone().t()
    t.triu_()
    equal(t, x.t().triu())
    values, indices = torch.empty(0, device="npu"), torch.empty(0, dtype=torch.long, device="npu")
    torch.sort(d, 1, descending=True, out=(values, indices))
    equal((values, indices), tuple(torch.sort(x, 1, descending=True)))
    torch.topk(d, 2, 0, out=(values, indices))
    equal((values, indices), tuple(torch.topk(x, 2, 0)))


SORTABLE = [d for d in ALL_DTYPES if not d.is_complex]


@pytest.mark.parametrize("dtype", SORTABLE, ids=str)
def test_sort_argsort_topk_match_cpu(dtype):
    x = torch.randint(0, 4, (6, 7, 8)).to(dtype)  # many ties: stability shows
    for dim in (0, 1, -1):
        for descending in (False, True):
            same_as_cpu(lambda t: t.sort(dim=dim, descending=descending, stable=True), x)
            same_as_cpu(lambda t: t.argsort(dim=dim, descending=descending, stable=True), x)
            same_as_cpu(lambda t: t.transpose(0, 1).sort(dim=dim, descending=descending, stable=True), x)
    if dtype != torch.bool:  # CPU has no bool topk
        y = make_tensor((5, 9), dtype, seed=4)
        for k in (0, 1, 4):
            for largest in (True, False):
                check_topk(y, k, 1, largest)
                check_topk(y[:, :5].t(), k, 0, largest)


def check_topk(x, k, dim, largest):
    """Values equal CPU's; CPU orders tied indices arbitrarily, so indices are
    checked to point at those values (npu: ties by position, as sort)."""
    values, indices = x.npu().topk(k, dim=dim, largest=largest)
    expected = x.topk(k, dim=dim, largest=largest)
    equal(values, expected.values)
    assert indices.dtype == torch.int64 and indices.shape == expected.indices.shape
    assert torch.equal(x.gather(dim, indices.cpu()), expected.values)
    if k > 0:
        assert (indices.cpu().sort(dim).values.diff(dim=dim) > 0).all()  # distinct positions


def test_sort_with_nans_and_empty():
    x = torch.tensor([3.0, float("nan"), -1.0, float("nan"), 2.0])
    same_as_cpu(lambda t: t.sort(stable=True), x)
    same_as_cpu(lambda t: t.sort(descending=True, stable=True), x)
    same_as_cpu(lambda t: t.topk(2), x)
    same_as_cpu(lambda t: t.sort(dim=0), torch.empty(0, 3))
    same_as_cpu(lambda t: t.topk(0, 1), torch.empty(2, 3))


def test_bad_arguments_raise_clear_errors():
    x = torch.randn(3, 4)
    for fn in (lambda t: torch.cat([t, t[:, :2]], 0), lambda t: torch.cat([t, t.new_zeros(2, 3, 1)]),
               lambda t: torch.cat([t.sum()]), lambda t: torch.stack([t, t[:2]]), lambda t: t.flip(2),
               lambda t: t.flip(0, 0), lambda t: t.roll((1, 2), (0,)), lambda t: t.repeat(2),
               lambda t: t.topk(5, 1), lambda t: t.sort(dim=3), lambda t: t[0].tril()):
        same_as_cpu(fn, x)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        torch.cat([x.npu(), x[:, :2].npu()])
    with pytest.raises(RuntimeError, match="k out of range"):
        x.npu().topk(7)
    equal(torch.cat([x.npu(), x.npu()]), torch.cat([x, x]))  # still working


def test_autograd_through_cat_stack_and_sort():
    npu_emu._C._set_fallback_mode("allow")  # backward formulas may use pointwise ops
    before = npu_emu.fallback_report()
    x = torch.randn(3, 4, dtype=torch.float64)
    for fn in (lambda t: torch.cat([t, t * 2], 1), lambda t: torch.stack([t, t], 0), lambda t: t.flip(0).roll(1),
               lambda t: t.sort(1)[0], lambda t: t.topk(2)[0], lambda t: t.tril()):
        a = x.clone().requires_grad_()
        b = x.clone().npu().requires_grad_()
        g = torch.randn_like(fn(a))
        fn(a).backward(g)
        fn(b).backward(g.npu())
        torch.testing.assert_close(b.grad.cpu(), a.grad)
    assert_not_in_fallback(before, ["cat", "stack", "flip", "roll", "sort", "topk", "tril"])


def test_private_format_inputs_in_tensor_lists():
    import torch_npu  # the torch_npu stand-in: format casts

    x = make_tensor((2, 16, 4, 4), torch.float32, 5)
    y = torch_npu.npu_format_cast(x.npu(), 3)  # NC1HWC0: the kernels see it through a base-format copy
    equal(torch.cat([y, x.npu()], 1), torch.cat([x, x], 1))
    equal(torch.stack([y, y], 0), torch.stack([x, x], 0))
    equal(y[torch.tensor([1, 0]).npu()], x[torch.tensor([1, 0])])


@pytest.mark.parametrize("k", [2**63 - 1, -2**63, 2**62, -2**62, 6, -6], ids=str)
def test_tril_triu_extreme_diagonals(k):
    """A diagonal near INT64_MAX keeps everything (tril) or nothing (triu), as
    on CPU; row + diagonal + 1 overflowed into the opposite."""
    x = make_tensor((5, 5), torch.int8, 3)
    for fn in (torch.tril, torch.triu):
        equal(fn(x.npu(), k), fn(x, k))
        t = x.npu()
        getattr(t, fn.__name__ + "_")(k)
        equal(t, fn(x, k))
