"""The indexing family runs natively on npu and matches CPU: index_select,
gather, take, scatter (src/value, reduce), scatter_add, scatter_reduce,
advanced indexing x[idx] / x[mask] / mixed, index_put_ (accumulate),
masked_fill, masked_select, nonzero.

Tolerances: exact (torch.equal) for everything that only moves values,
and for integer reductions. Floating scatter_add / scatter_reduce / index_put
with accumulate add several values into one slot, in an order that differs
from CPU's, so those use assert_close's dtype defaults. Plain scatter and
non-accumulating index_put use unique indices: with duplicates, which write
wins is unspecified on CPU too. Every test forbids the CPU fallback.
"""

from __future__ import annotations

import pytest
import torch

import npu_emu
from conftest import ALL_DTYPES, make_tensor
from native_guard import assert_not_in_fallback, native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")


def close(npu_result, cpu_result):
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    if cpu_result.dtype in (torch.float16, torch.bfloat16):
        # Combining scatters of values ~10 round every partial result to the
        # dtype on CPU but accumulate in float32 on npu; after cancellation
        # that leaves up to one rounding step of the partials (bf16: 2**-4).
        atol = 2 ** -4 if cpu_result.dtype == torch.bfloat16 else 2 ** -7
        torch.testing.assert_close(npu_result.cpu(), cpu_result, equal_nan=True, rtol=8e-3, atol=atol)
    elif cpu_result.dtype.is_floating_point or cpu_result.dtype.is_complex:
        torch.testing.assert_close(npu_result.cpu(), cpu_result, equal_nan=True)
    else:
        assert torch.equal(npu_result.cpu(), cpu_result)


def same_as_cpu(fn, *xs):
    """fn on npu copies of xs gives CPU's result, or raises CPU's exception type."""
    try:
        expected = fn(*xs)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(*[x.npu() for x in xs])
            torch.npu.synchronize()  # bad index values are found when the kernel runs
        return
    close(fn(*[x.npu() for x in xs]), expected)


def unique_index(shape, dim, size, seed):
    """An index whose entries along `dim` are distinct (a scatter without collisions)."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.rand(*shape[:dim], size, *shape[dim + 1:], generator=g).argsort(dim)
    return perm.narrow(dim, 0, shape[dim])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32], ids=str)
def test_gather_family_matches_cpu(dtype, index_dtype):
    x = make_tensor((5, 6, 7), dtype, seed=1)
    idx = torch.randint(-0, 6, (4,)).to(index_dtype)
    same_as_cpu(lambda t, i: t.index_select(1, i), x, idx)
    same_as_cpu(lambda t, i: t.index_select(-1, i), x, idx)
    same_as_cpu(lambda t, i: t.transpose(0, 2).index_select(0, i), x, idx)  # non-contiguous self
    same_as_cpu(lambda t, i: t.index_select(0, i), x, idx[:0])  # empty index
    g = torch.randint(0, 7, (5, 3, 7)).to(index_dtype)
    same_as_cpu(lambda t, i: t.gather(1, i), x, g)
    same_as_cpu(lambda t, i: t.gather(0, i), x, (g % 5).transpose(0, 2)[:5])  # non-contiguous index
    same_as_cpu(lambda t, i: t.gather(2, i[:, :0]), x, g)
    flat = torch.randint(-5 * 6 * 7, 5 * 6 * 7, (3, 4))
    same_as_cpu(lambda t, i: t.take(i), x, flat)
    same_as_cpu(lambda t, i: t.t().take(i) if t.dim() == 2 else t.permute(2, 0, 1).take(i), x, flat)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_scatter_family_matches_cpu(dtype):
    x = make_tensor((5, 6), dtype, seed=2)
    src = make_tensor((3, 6), dtype, seed=3)
    idx = unique_index((3, 6), 0, 5, seed=4)
    same_as_cpu(lambda t, i, s: t.scatter(0, i, s), x, idx, src)
    same_as_cpu(lambda t, i, s: t.t().scatter(1, i.t(), s.t()), x, idx, src)  # non-contiguous everywhere
    same_as_cpu(lambda t, i: t.scatter(0, i, 3), x, idx)
    same_as_cpu(lambda t, i: t.clone().scatter_(0, i, 1), x, idx)
    same_as_cpu(lambda t, i, s: t.clone().scatter_(0, i, s), x, idx, src)
    dup = torch.randint(0, 5, (4, 6))  # collisions: every reduce combines them
    src4 = make_tensor((4, 6), dtype, seed=5)
    if dtype != torch.bool:
        same_as_cpu(lambda t, i, s: t.scatter_add(0, i, s), x, dup, src4)
        same_as_cpu(lambda t, i, s: t.clone().scatter_add_(0, i, s), x, dup, src4)
        for reduce in ("add", "multiply"):
            same_as_cpu(lambda t, i, s: t.scatter(0, i, s, reduce=reduce), x, dup, src4)
            same_as_cpu(lambda t, i: t.scatter(0, i, 2, reduce=reduce), x, dup)
    if dtype == torch.bool:
        return  # CPU's scatter_reduce has no bool kernels (the npu's has)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            same_as_cpu(lambda t, i, s: t.scatter_reduce(0, i, s, reduce, include_self=include_self), x, dup, src4)
            same_as_cpu(lambda t, i, s: t.clone().scatter_reduce_(1, i.t()[:, :4], s.t()[:, :4], reduce,
                                                                  include_self=include_self), x.t(), dup, src4)


def test_gather_scatter_out_forms_and_0dim():
    x = make_tensor((4, 5), torch.float32, seed=6)
    i = torch.randint(0, 4, (2, 5))
    for fn in (lambda t, ix, o: torch.gather(t, 0, ix, out=o), lambda t, ix, o: torch.index_select(t, 1, ix[0], out=o),
               lambda t, ix, o: torch.take(t, ix, out=o), lambda t, ix, o: torch.scatter(t, 0, ix, 1.5, out=o),
               lambda t, ix, o: torch.scatter_add(t, 0, ix, t[:2], out=o),
               lambda t, ix, o: torch.scatter_reduce(t, 0, ix, t[:2], "amax", out=o)):
        o = torch.empty(0, device="npu")
        assert fn(x.npu(), i.npu(), o) is o
        close(o, fn(x, i, torch.empty(0)))
    s = torch.tensor(4.0)
    zero = torch.tensor(0)
    same_as_cpu(lambda t, ix: t.gather(0, ix), s, zero)
    same_as_cpu(lambda t, ix: t.index_select(0, ix), s, zero)
    same_as_cpu(lambda t, ix: t.index_select(0, ix.view(1)), s, zero)
    same_as_cpu(lambda t, ix: t.take(ix), s, zero)
    same_as_cpu(lambda t, ix: t.scatter(0, ix, 2.0), s, zero)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_advanced_indexing_matches_cpu(dtype):
    x = make_tensor((5, 6, 7), dtype, seed=7)
    i = torch.tensor([4, 0, -1, 2])
    j = torch.tensor([[1, 4], [0, 0]], dtype=torch.int32)
    mask = make_tensor((5, 6), torch.bool, seed=8)
    same_as_cpu(lambda t, a: t[a], x, i)
    same_as_cpu(lambda t, a: t[:, a], x, i)
    same_as_cpu(lambda t, a, b: t[a[:2], b[0]], x, i, j)  # adjacent: in place
    same_as_cpu(lambda t, a, b: t[b, :, b], x, i, j)  # separated: to the front
    same_as_cpu(lambda t, a: t[1:, a, ::2], x, i)
    same_as_cpu(lambda t, m: t[m], x, mask)
    same_as_cpu(lambda t, m: t[m[0]], x, mask)
    same_as_cpu(lambda t, m: t[:, m[:, 0][:6]] if t.shape[1] == 6 else t, x, mask)
    same_as_cpu(lambda t, m, a: t[m[:, 1], a[1:]], x, mask, torch.tensor([0, 3, 6]))
    same_as_cpu(lambda t, m: t[m.to(torch.uint8)], x, mask)
    same_as_cpu(lambda t, m: t.transpose(0, 1)[m.t()], x, mask)  # non-contiguous self and mask
    same_as_cpu(lambda t, m: t[m], x, torch.zeros_like(mask))  # nothing selected


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_index_put_matches_cpu(dtype):
    x = make_tensor((5, 6), dtype, seed=9)
    v = make_tensor((3, 6), dtype, seed=10)
    i = torch.tensor([4, 0, 2])  # unique: plain assignment is deterministic
    dup = torch.tensor([1, 3, 1, 1])
    mask = make_tensor((5, 6), torch.bool, seed=11)

    def put(t, idx, values, accumulate=False):
        t = t.clone()
        t.index_put_(idx, values, accumulate=accumulate)
        return t

    same_as_cpu(lambda t, a, b: put(t, (a,), b), x, i, v)
    same_as_cpu(lambda t, a, b: put(t, (a,), b[0]), x, i, v)  # broadcast values
    same_as_cpu(lambda t, a, b: put(t.t(), (None, a), b.t()), x, i, v)
    if dtype != torch.bool:
        same_as_cpu(lambda t, a, b: put(t, (a,), b[:1].expand(4, 6), True), x, dup, v)
        same_as_cpu(lambda t, a, b: put(t, (a, a), b[0, :4], True), x, dup, v)
    same_as_cpu(lambda t, m, b: put(t, (m,), b[0, 0]), x, mask, v)

    def setitem(t, m, b):
        t = t.clone()
        t[m] = b[0, 0]
        t[1, 2:4] = b[1, :2]
        return t

    same_as_cpu(setitem, x, mask, v)
    y = x.clone().npu()
    y[torch.tensor([0, 2])] = 1  # a Python scalar value and a CPU index
    expected = x.clone()
    expected[torch.tensor([0, 2])] = 1
    close(y, expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_masked_ops_and_nonzero_match_cpu(dtype):
    x = make_tensor((4, 5, 6), dtype, seed=12)
    mask = make_tensor((4, 5, 6), torch.bool, seed=13)
    same_as_cpu(lambda t, m: t.masked_fill(m, 1), x, mask)
    same_as_cpu(lambda t, m: t.masked_fill(m[0, 0], 0), x, mask)  # broadcast mask
    same_as_cpu(lambda t, m: t.masked_fill(m, torch.tensor(1).to(t.dtype)), x, mask)  # 0-dim npu value
    same_as_cpu(lambda t, m: t.transpose(0, 2).clone().masked_fill_(m.transpose(0, 2), 0), x, mask)
    same_as_cpu(lambda t, m: t.masked_select(m), x, mask)
    same_as_cpu(lambda t, m: t.masked_select(m[0]), x, mask)  # broadcast
    same_as_cpu(lambda t, m: t.transpose(1, 2).masked_select(m.transpose(1, 2)), x, mask)
    same_as_cpu(lambda t: t.nonzero(), x)
    same_as_cpu(lambda t: t.transpose(0, 2).nonzero(), x)
    same_as_cpu(lambda t: torch.nonzero(t, as_tuple=True)[1], x)
    close(torch.ones(3).npu().masked_fill(torch.tensor([True, False, True]).npu(), torch.tensor(2.0)),
          torch.tensor([2.0, 1.0, 2.0]))  # a CPU 0-dim value


def test_data_dependent_sizes_0dim_empty_and_large():
    for t in (torch.tensor(3), torch.tensor(0), torch.empty(0, 3), torch.zeros(4, 5)):
        same_as_cpu(lambda a: a.nonzero(), t)
        same_as_cpu(lambda a, m: a.masked_select(m), t.float(), t != 0)
    big = torch.randn(1 << 20, generator=torch.Generator().manual_seed(14))
    same_as_cpu(lambda a: a.view(1024, 1024).nonzero(), (big > 0.5).float())
    same_as_cpu(lambda a, m: a.masked_select(m), big, big > 0)
    same_as_cpu(lambda a, m: a[m], big, big < -1)
    same_as_cpu(lambda a, i: a.view(1024, 1024).gather(1, i), big, (big.view(1024, 1024).abs() * 100).long() % 1024)
    same_as_cpu(lambda a, i: a.view(1024, 1024).index_select(0, i), big, torch.arange(1023, -1, -3))
    out = torch.empty(0, dtype=torch.long, device="npu")
    torch.nonzero(torch.tensor([[0, 1], [1, 1]]).npu(), out=out)
    close(out, torch.tensor([[0, 1], [1, 0], [1, 1]]))
    sel = torch.empty(0, device="npu")
    torch.masked_select(torch.arange(4.0).npu(), torch.tensor([True, False, True, True]).npu(), out=sel)
    close(sel, torch.tensor([0.0, 2.0, 3.0]))


def test_bad_arguments_raise_clear_errors():
    x = torch.randn(3, 4)
    bad_dtype = torch.tensor([1.0])
    for fn in (lambda t: t.index_select(0, bad_dtype), lambda t: t.gather(0, bad_dtype.view(1, 1)),
               lambda t: t[bad_dtype], lambda t: t.take(torch.tensor([1], dtype=torch.int32)),
               lambda t: t.masked_fill(torch.ones(3, 4, dtype=torch.uint8), 1.0),
               lambda t: t.masked_fill(torch.ones(3, 4, dtype=torch.bool), torch.ones(2)),
               lambda t: t.masked_select(torch.ones(3, 4, dtype=torch.uint8)),
               lambda t: t[torch.ones(2, dtype=torch.bool)], lambda t: t[0, 0, 0],
               lambda t: t.scatter(0, torch.tensor([[1]]), t.double()),
               lambda t: t.scatter(0, torch.tensor([[1]]), t, reduce="max"),
               lambda t: t.scatter_reduce(0, torch.tensor([[1]]), t, reduce="foo"),
               lambda t: t.index_put_((torch.tensor([1]),), torch.ones(1, dtype=torch.float64))):
        same_as_cpu(fn, x)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x.npu()[bad_dtype.npu()]
    with pytest.raises(RuntimeError, match="index_select\\(\\): Expected dtype int32 or int64 for index"):
        x.npu().index_select(0, bad_dtype.npu())


@pytest.mark.parametrize("op", ["gather", "index_select", "index", "take", "scatter", "index_put_"])
def test_out_of_range_index_fails_the_next_synchronize_naming_the_op(op):
    d = torch.randn(3, 4).npu()
    bad = {"gather": lambda: d.gather(1, torch.tensor([[7]]).npu()),
           "index_select": lambda: d.index_select(0, torch.tensor([5]).npu()),
           "index": lambda: d[torch.tensor([9]).npu()],
           "take": lambda: d.take(torch.tensor([100]).npu()),
           "scatter": lambda: d.scatter(0, torch.tensor([[3]]).npu(), 1.0),
           "index_put_": lambda: d.clone().index_put_((torch.tensor([-9]).npu(),), torch.tensor(1.0).npu())}
    kernel = {"gather": "aclnnGather", "index_select": "aclnnIndexSelect", "index": "aclnnIndex", "take": "aclnnTake",
              "scatter": "aclnnScatterValue", "index_put_": "aclnnIndexPutImpl"}
    bad[op]()  # launched asynchronously: the kernel checks the values when it runs
    with pytest.raises(RuntimeError, match=f"{kernel[op]}.*out of bounds"):
        torch.npu.synchronize()
    torch.npu.synchronize()  # reported once; the stream keeps working
    close(d.index_select(0, torch.tensor([2, 0]).npu()), d.cpu().index_select(0, torch.tensor([2, 0])))


def test_autograd_through_native_indexing():
    npu_emu._C._set_fallback_mode("allow")  # backward formulas may use pointwise ops
    before = npu_emu.fallback_report()
    x = torch.randn(5, 6, dtype=torch.float64)
    i = torch.tensor([4, 0, 4, 1])
    g = torch.randint(0, 6, (5, 3))
    mask = x > 0
    for fn, args in ((lambda t, a: t.gather(1, a), (g,)), (lambda t, a: t[a], (i,)), (lambda t, a: t[:, a], (i,)),
                     (lambda t, m: t[m], (mask,)), (lambda t, a: t.take(a), (g,)),
                     (lambda t, m: t.masked_fill(m, 0.0), (mask,))):
        a = x.clone().requires_grad_()
        b = x.clone().npu().requires_grad_()
        out_cpu = fn(a, *args)
        grad = torch.randn_like(out_cpu)
        out_cpu.backward(grad)
        fn(b, *[t.npu() for t in args]).backward(grad.npu())
        torch.testing.assert_close(b.grad.cpu(), a.grad)
    assert_not_in_fallback(before, ["gather", "index", "_index_put_impl_", "scatter_add", "scatter_add_", "nonzero",
                                    "take", "masked_fill_"])


INDEX_ADD_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                    torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", INDEX_ADD_DTYPES, ids=str)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32], ids=str)
def test_index_add_matches_cpu(dtype, index_dtype):
    x = make_tensor((4, 5, 3), dtype, seed=1)
    src = make_tensor((4, 6, 3), dtype, seed=2)
    idx = torch.tensor([0, 4, 4, 1, 0, 2], dtype=index_dtype)  # repeated entries accumulate
    alpha = 2 if not dtype.is_floating_point else 1.5
    same_as_cpu(lambda t, i, s: torch.index_add(t, 1, i, s, alpha=alpha), x, idx, src)
    same_as_cpu(lambda t, i, s: t.transpose(0, 2).index_add(2, i[:4], s.transpose(0, 2)[..., :4]), x, idx, src)
    same_as_cpu(lambda t, i, s: t.clone().index_add_(-2, i, s), x, idx, src)
    same_as_cpu(lambda t, i, s: torch.index_add(t, 1, i, s, out=torch.empty_like(t)), x, idx, src)
    same_as_cpu(lambda t, i, s: t.index_add(0, i[:0], s[:0]), x, idx, src)  # empty index
    same_as_cpu(lambda t, i, s: t[0, 0, 0].index_add(0, i[:1], s[0, 0, 0]), x, idx, src)  # 0-dim


def test_index_add_errors_and_out_of_range_index():
    d = torch.zeros(3, 4).npu()
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        d.index_add(0, torch.tensor([0]).npu(), torch.ones(1, 4, dtype=torch.float64).npu())
    with pytest.raises(RuntimeError, match=r"Number of indices \(2\) should be equal to source.size\(dim\) \(1\)"):
        d.index_add(0, torch.tensor([0, 1]).npu(), torch.ones(1, 4).npu())
    d.index_add(0, torch.tensor([3]).npu(), torch.ones(1, 4).npu())
    with pytest.raises(RuntimeError, match="aclnnIndexAdd.*out of bounds"):
        torch.npu.synchronize()
    torch.npu.synchronize()


def _uint8_warnings(fn, device: str) -> list[str]:
    import warnings

    x = torch.arange(12.0).view(3, 4).to(device)
    mask = torch.tensor([1, 0, 1], dtype=torch.uint8, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(x, mask)
    # The message without PyTorch's "(Triggered internally at <source file>)" suffix.
    return [str(w.message).split(" (Triggered internally")[0] for w in caught if "uint8" in str(w.message)]


@pytest.mark.parametrize("name, fn", [
    ("getitem", lambda x, m: x[m]),
    ("setitem", lambda x, m: x.__setitem__(m, torch.ones(4, device=x.device))),
    ("index_put_accumulate", lambda x, m: x.index_put_((m,), torch.ones(4, device=x.device), accumulate=True)),
    ("index_put_2d_mask", lambda x, m: x.index_put_((m.view(3, 1).expand(3, 4).contiguous(),),
                                                    torch.arange(8.0, device=x.device))),
])
def test_uint8_masks_warn_as_cpu(name, fn):
    """A uint8 mask is deprecated: every indexing op that takes one warns as CPU does, once per mask."""
    assert _uint8_warnings(fn, "npu") == _uint8_warnings(fn, "cpu")
