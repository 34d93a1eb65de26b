"""Reductions and scans run natively on npu and match PyTorch's CPU results.

Tolerances: integer, bool and index results (argmax, max indices, all/any,
integer sums) must be exact. Floating results use torch.testing.assert_close's
defaults for the dtype, widened where documented: the npu kernels split long
reductions across threads and add partial sums in a different order than
PyTorch's CPU kernels, so a float32 sum of n values differs by rounding that
grows with n (a few ulp per partial sum); float16/bfloat16 results accumulate
in float32 on both sides and differ by at most the final rounding. Every test
runs with the CPU fallback forbidden (native_only), so a pass proves the op is
native.
"""

from __future__ import annotations

import pytest
import torch

import npu_emu
from conftest import ALL_DTYPES, make_tensor
from native_guard import assert_not_in_fallback, native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")


def close(npu_result, cpu_result, **tol):
    """Same dtype and shape as CPU, values within the dtype's tolerance."""
    if isinstance(cpu_result, tuple):
        for a, b in zip(npu_result, cpu_result):
            close(a, b, **tol)
        return
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    exact = not (cpu_result.dtype.is_floating_point or cpu_result.dtype.is_complex)
    if exact:
        assert torch.equal(npu_result.cpu(), cpu_result)
    else:
        torch.testing.assert_close(npu_result.cpu(), cpu_result, equal_nan=True, **tol)


def same_as_cpu(fn, x: torch.Tensor, **tol):
    """fn on npu gives CPU's result, or raises the exception type CPU raises."""
    try:
        expected = fn(x)
    except Exception as e:  # noqa: BLE001  (the npu must fail the same way)
        with pytest.raises(type(e)):
            fn(x.npu())
        return
    close(fn(x.npu()), expected, **tol)


# (dim, keepdim) combinations every dim-list reduction is checked with.
DIMS = [(None, False), (None, True), (0, False), (-1, True), ((0, 2), False), ((2, 0), True), ([], False)]



def dims_for(op: str):
    # CPU's logsumexp fails on dim=[] (its out= shape check); the npu's reduces everything.
    return [(d, k) for d, k in DIMS if not (op == "logsumexp" and d == [])]


DIM_LIST_OPS = {
    "sum": lambda x, d, k: x.sum() if d is None and not k else torch.sum(x, d, keepdim=k),
    "mean": lambda x, d, k: x.mean() if d is None and not k else torch.mean(x, d, keepdim=k),
    "amax": lambda x, d, k: x.amax(() if d is None else d, keepdim=k),
    "amin": lambda x, d, k: x.amin(() if d is None else d, keepdim=k),
    "all": lambda x, d, k: x.all() if d is None and not k else torch.all(x, d, keepdim=k),
    "any": lambda x, d, k: x.any() if d is None and not k else torch.any(x, d, keepdim=k),
    # CPU's logsumexp rejects an empty dim list: name every dim instead.
    "logsumexp": lambda x, d, k: torch.logsumexp(x, list(range(max(x.dim(), 1))) if d is None else d, keepdim=k),
    "var": lambda x, d, k: torch.var(x, d, keepdim=k),
    "std": lambda x, d, k: torch.std(x, d, keepdim=k),
    "norm": lambda x, d, k: torch.linalg.vector_norm(x, 2, d, keepdim=k),
}


@pytest.mark.parametrize("op", list(DIM_LIST_OPS), ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dim_list_reductions_match_cpu(op, dtype):
    if op == "logsumexp" and dtype.is_complex:
        pytest.skip("complex logsumexp composes pointwise ops (exp, log), not part of this family")
    x = make_tensor((4, 5, 6), dtype, seed=1)
    if dtype.is_floating_point or dtype.is_complex:
        x = x / 10  # logsumexp and norms stay in range for float16
    fn = DIM_LIST_OPS[op]
    for dim, keepdim in dims_for(op):
        same_as_cpu(lambda t: fn(t, dim, keepdim), x, rtol=2e-3 if dtype == torch.float16 else None,
                    atol=2e-3 if dtype == torch.float16 else None)


@pytest.mark.parametrize("op", list(DIM_LIST_OPS), ids=str)
@pytest.mark.parametrize("shape,dims", [((), [None, 0, -1]), ((0, 3), [None, 0, 1]), ((3, 0, 2), [1, (0, 2), None])],
                         ids=["0-dim", "0x3", "3x0x2"])
def test_dim_list_reductions_0dim_and_empty(op, shape, dims):
    x = make_tensor(shape, torch.float32, seed=2)
    for dim in dims:
        for keepdim in (False, True):
            same_as_cpu(lambda t: DIM_LIST_OPS[op](t, dim, keepdim), x)


@pytest.mark.parametrize("op", list(DIM_LIST_OPS), ids=str)
def test_dim_list_reductions_non_contiguous(op):
    x = make_tensor((6, 7, 8), torch.float32, seed=3).permute(2, 0, 1)[::2, :, 1:]
    assert not x.is_contiguous()
    for dim, keepdim in dims_for(op):
        same_as_cpu(lambda t: DIM_LIST_OPS[op](t, dim, keepdim), x)


def test_large_reductions_split_across_threads():
    x = torch.randn(1 << 20, dtype=torch.float32, generator=torch.Generator().manual_seed(11))
    d = x.npu()
    # 1M float32 terms: partial-sum order differs from CPU's (see module doc).
    close(d.sum(), x.sum(), rtol=1e-4, atol=1e-2)
    close(d.mean(), x.mean(), rtol=1e-4, atol=1e-6)
    close(d.var(), x.var(), rtol=1e-4, atol=1e-6)
    # CPU's own float32 2-norm of 1M terms is ~1e-5 off the float64 value; the npu's is closer.
    close(torch.linalg.vector_norm(d), torch.linalg.vector_norm(x), rtol=1e-4, atol=0)
    close(torch.linalg.vector_norm(d), torch.linalg.vector_norm(x.double()).float(), rtol=2e-6, atol=0)
    close(d.amax(), x.amax())
    close(d.argmax(), x.argmax())
    close(d.view(1024, 1024).sum(0), x.view(1024, 1024).sum(0), rtol=1e-4, atol=1e-4)
    close(d.view(1024, 1024).logsumexp(1), x.view(1024, 1024).logsumexp(1))
    i = torch.randint(-1000, 1000, (1 << 20,), dtype=torch.int32, generator=torch.Generator().manual_seed(12))
    close(i.npu().sum(), i.sum())
    close(i.npu().view(256, 4096).cumsum(1), i.view(256, 4096).cumsum(1))
    close(i.npu().view(4096, 256).amin(0), i.view(4096, 256).amin(0))


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64, torch.complex64], ids=str)
def test_type_promotion_and_dtype_argument(dtype):
    x = make_tensor((3, 4), dtype, seed=4)
    same_as_cpu(lambda t: t.sum(), x)  # integers and bool -> int64
    same_as_cpu(lambda t: t.prod(1), x)
    same_as_cpu(lambda t: t.mean(), x)  # integers raise as on CPU
    same_as_cpu(lambda t: t.cumsum(0), x)
    same_as_cpu(lambda t: t.cumprod(1), x)
    if not dtype.is_complex:  # complex logsumexp composes pointwise ops
        same_as_cpu(lambda t: t.logsumexp(1), x)  # integers compute in the default float dtype
    for target in (torch.int64, torch.float64, torch.float32):
        if target.is_floating_point or not (dtype.is_floating_point or dtype.is_complex):
            same_as_cpu(lambda t: t.sum(0, dtype=target), x)
            same_as_cpu(lambda t: t.cumsum(1, dtype=target), x)
            same_as_cpu(lambda t: t.prod(dtype=target), x)
    if dtype.is_floating_point:
        same_as_cpu(lambda t: t.mean(1, dtype=torch.float64), x)
        same_as_cpu(lambda t: torch.linalg.vector_norm(t, dtype=torch.float64), x)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
                                   torch.float32, torch.float64, torch.bool], ids=str)
def test_max_min_with_indices_match_cpu(dtype):
    # Few distinct values: ties must pick the first occurrence, as on CPU.
    x = torch.randint(0, 3, (5, 6, 7)).to(dtype)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            same_as_cpu(lambda t: tuple(torch.max(t, dim, keepdim)), x)
            same_as_cpu(lambda t: tuple(torch.min(t, dim, keepdim)), x)
            same_as_cpu(lambda t: torch.argmax(t, dim, keepdim), x)
            same_as_cpu(lambda t: torch.argmin(t, dim, keepdim), x)
    same_as_cpu(lambda t: t.max(), x)
    same_as_cpu(lambda t: t.min(), x)
    same_as_cpu(lambda t: t.argmax(), x)
    same_as_cpu(lambda t: t.argmin(keepdim=True), x)
    same_as_cpu(lambda t: t.transpose(0, 2).argmax(), x)


def test_nan_propagates_through_max_and_argmax():
    x = torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, float("nan")]])
    for fn in (lambda t: t.max(1), lambda t: t.amax(0), lambda t: t.argmax(1), lambda t: t.max(), lambda t: t.argmin()):
        same_as_cpu(lambda t: tuple(fn(t)) if isinstance(fn(t), tuple) else fn(t), x)


def test_0dim_single_dim_reductions():
    x = torch.tensor(3.5)
    for fn in (lambda t: tuple(t.max(0)), lambda t: tuple(t.min(-1, keepdim=True)), lambda t: t.argmax(0),
               lambda t: t.argmax(), lambda t: t.prod(0), lambda t: t.cumsum(0), lambda t: t.cumprod(-1),
               lambda t: t.max(), lambda t: t.all(0), lambda t: t.var(0, correction=0)):
        same_as_cpu(fn, x)


def test_empty_reductions_raise_like_cpu():
    empty = torch.empty(0, 3)
    for fn in (lambda t: t.max(), lambda t: t.min(), lambda t: t.amax(), lambda t: t.amax(0), lambda t: t.argmax(),
               lambda t: t.argmin(0), lambda t: t.max(0), lambda t: torch.linalg.vector_norm(t, float("inf")),
               lambda t: t.amin(1), lambda t: t.argmax(1), lambda t: t.max(1)):
        same_as_cpu(fn, empty)
    with pytest.raises(IndexError, match="non-zero size"):
        empty.npu().amax(0)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        empty.npu().max()
    # An empty sum, prod, mean or logsumexp has an identity (or NaN), as on CPU.
    for fn in (lambda t: t.sum(0), lambda t: t.prod(), lambda t: t.mean(), lambda t: t.logsumexp(0),
               lambda t: t.cumsum(0), lambda t: t.all(), lambda t: t.any(1)):
        same_as_cpu(fn, empty)


def test_bad_arguments_raise_clear_errors():
    x = torch.randn(2, 3).npu()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sum(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((0, 0))
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        torch.ones(3, dtype=torch.int32).npu().mean()
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        torch.ones(3, dtype=torch.int64).npu().var()
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64).npu())
    assert float(x.sum().cpu()) == pytest.approx(float(x.cpu().sum()))  # still working


def test_out_forms():
    x = make_tensor((4, 5), torch.float32, seed=5)
    d = x.npu()
    out = torch.empty(0, device="npu")
    torch.sum(d, 1, out=out)
    close(out, x.sum(1))
    out64 = torch.empty(7, dtype=torch.float64, device="npu")  # resized, computed in float64
    torch.sum(d, 0, keepdim=True, out=out64)
    close(out64, torch.sum(x, 0, keepdim=True, out=torch.empty(7, dtype=torch.float64)))
    for fn in (lambda t, o: torch.mean(t, (0, 1), out=o), lambda t, o: torch.amax(t, 1, out=o),
               lambda t, o: torch.amin(t, 0, out=o), lambda t, o: torch.logsumexp(t, 1, out=o),
               lambda t, o: torch.var(t, 1, out=o), lambda t, o: torch.std(t, 0, correction=0, out=o),
               lambda t, o: torch.linalg.vector_norm(t, 1.5, 1, out=o), lambda t, o: torch.norm(t, 2, 1, out=o),
               lambda t, o: torch.prod(t, 1, out=o), lambda t, o: torch.cumsum(t, 1, out=o),
               lambda t, o: torch.cumprod(t, 0, out=o), lambda t, o: torch.max(t, out=o)):
        o = torch.empty(0, device="npu")
        r = fn(d, o)
        assert r is o
        close(o, fn(x, torch.empty(0)))
    b = x > 0
    for fn in (lambda t, o: torch.all(t, 1, out=o), lambda t, o: torch.any(t, out=o)):
        o = torch.empty(0, dtype=torch.bool, device="npu")
        fn(b.npu(), o)
        close(o, fn(b, torch.empty(0, dtype=torch.bool)))
    values, indices = torch.empty(0, device="npu"), torch.empty(0, dtype=torch.long, device="npu")
    torch.max(d, 1, out=(values, indices))
    close((values, indices), tuple(torch.max(x, 1)))
    idx = torch.empty(0, dtype=torch.long, device="npu")
    torch.argmin(d, 0, out=idx)
    close(idx, x.argmin(0))
    # A non-contiguous out= is written through its strides.
    strided = torch.zeros(5, 2, device="npu")[:, 0]
    torch.sum(d, 0, out=strided)
    close(strided, x.sum(0))


def test_in_place_scans():
    x = make_tensor((4, 5), torch.float32, seed=6)
    d = x.npu()
    d.cumsum_(1)
    close(d, x.cumsum(1))
    i = make_tensor((3, 4), torch.int32, seed=7)
    di = i.npu()
    di.t().cumprod_(1)
    i.t().cumprod_(1)
    close(di, i)


def test_var_std_corrections_and_var_mean():
    x = make_tensor((5, 8), torch.float32, seed=8)
    for correction in (0, 1, 2, 0.5):
        same_as_cpu(lambda t: torch.var(t, 1, correction=correction), x)
        same_as_cpu(lambda t: torch.std(t, correction=correction, keepdim=True), x)
        same_as_cpu(lambda t: torch.var_mean(t, 0, correction=correction), x)
        same_as_cpu(lambda t: torch.std_mean(t, (0, 1), correction=correction), x)
    c = make_tensor((4, 3), torch.complex64, seed=9)
    same_as_cpu(lambda t: torch.var(t, 1), c)


@pytest.mark.parametrize("p", [2, 1, float("inf"), float("-inf"), 0, 3.5, -1.5], ids=str)
def test_norms(p):
    x = make_tensor((6, 7), torch.float32, seed=10)
    same_as_cpu(lambda t: torch.linalg.vector_norm(t, p), x)
    same_as_cpu(lambda t: torch.linalg.vector_norm(t, p, (0, 1), keepdim=True), x)
    same_as_cpu(lambda t: torch.norm(t, p, 1), x)
    same_as_cpu(lambda t: t.norm(p), x)
    same_as_cpu(lambda t: torch.linalg.vector_norm(t.t(), p, 0, dtype=torch.float64), x)


def test_autograd_through_native_reductions():
    npu_emu._C._set_fallback_mode("allow")  # backward formulas use pointwise ops, which may fall back
    before = npu_emu.fallback_report()
    x = torch.randn(4, 5, dtype=torch.float64)
    for fn in (lambda t: t.sum(), lambda t: t.sum(1).pow(2).sum(), lambda t: t.mean(0).sum(),
               lambda t: t.amax(1).sum(), lambda t: t.logsumexp(1).sum(), lambda t: t.cumsum(1).sum()):
        a = x.clone().requires_grad_()
        b = x.clone().npu().requires_grad_()
        fn(a).backward()
        fn(b).backward()
        torch.testing.assert_close(b.grad.cpu(), a.grad)
    assert_not_in_fallback(before, ["sum", "mean", "amax", "logsumexp", "cumsum"])


# ---- wide unsigned inputs: the table's dtypes decide, as CPU does ------------------

WIDE_UNSIGNED = [torch.uint16, torch.uint32, torch.uint64]


@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
@pytest.mark.parametrize("op", ["sum", "sum_dim", "prod", "prod_dim", "cumsum", "cumprod", "all", "any"])
def test_wide_unsigned_accumulations_run_natively(op, dtype):
    """The sum/prod/scan/logical entries read every dtype (they convert into
    the compute dtype), so wide unsigned inputs stay native and equal CPU."""
    fns = {
        "sum": lambda t: t.sum(), "sum_dim": lambda t: t.sum(1, keepdim=True), "prod": lambda t: t.prod(),
        "prod_dim": lambda t: t.prod(0), "cumsum": lambda t: t.cumsum(1), "cumprod": lambda t: t.cumprod(0),
        "all": lambda t: t.all(1), "any": lambda t: t.any(),
    }
    x = torch.tensor([[1, 2, 3], [4, 0, 6]], dtype=dtype)
    cpu = fns[op](x)
    npu = fns[op](x.npu())
    assert npu.dtype == cpu.dtype
    assert torch.equal(npu.cpu(), cpu)


@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
@pytest.mark.parametrize("op", ["amax", "max_dim", "min_dim", "argmax", "argmin", "max"])
def test_ordered_reductions_refuse_wide_unsigned_like_cpu(op, dtype):
    """CPU has no max/argmax kernels for uint16/32/64: npu must not return a
    result either (the table's dtypes send it to the fallback, which refuses
    here with one clear error) instead of computing what CPU cannot."""
    fns = {
        "amax": lambda t: t.amax(0), "max_dim": lambda t: t.max(1), "min_dim": lambda t: t.min(0),
        "argmax": lambda t: t.argmax(), "argmin": lambda t: t.argmin(1), "max": lambda t: t.max(),
    }
    x = torch.tensor([[1, 2, 3], [4, 0, 6]], dtype=dtype)
    with pytest.raises(RuntimeError):
        fns[op](x)
    with pytest.raises(RuntimeError):
        fns[op](x.npu())


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64], ids=str)
def test_degrees_of_freedom_warning_is_cpus(fn, dtype):
    """The correction leaving no degrees of freedom warns as on CPU (once; twice
    for complex input, whose real and imaginary parts CPU reduces apart)."""
    import warnings

    def warned(x, **kwargs):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            getattr(torch, fn)(x, **kwargs)
        return [str(m.message).split(" (Triggered internally")[0] for m in w]

    for shape, kwargs in (((1, 3), {"dim": 0}), ((2, 3), {"dim": 0, "correction": 2}), ((3, 0), {"dim": 0}),
                          ((2, 3), {"dim": 0}), ((4,), {"correction": 0.5})):
        x = torch.randn(shape, dtype=dtype)
        assert warned(x.npu(), **kwargs) == warned(x, **kwargs), (shape, kwargs)
    out = torch.empty(0, device="npu")
    if fn in ("var", "std"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            getattr(torch, fn)(torch.randn(1, 3, device="npu"), dim=0, out=out)
        assert len(w) == 1 and "degrees of freedom is <= 0" in str(w[0].message)
