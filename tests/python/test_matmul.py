"""Matrix products on npu (ops/table/matmul.yaml over the GEMM engine of
kernels/linalg/) against PyTorch CPU, with the CPU fallback forbidden.

Tolerances: float32/complex64 and float64 use torch.testing.assert_close's
defaults for the dtype (rtol 1.3e-6 / 1e-7) with atol scaled by sqrt(k),
since a k-term sum of O(1) products rounds differently in any other
summation order (Eigen's blocking vs MKL's); float16/bfloat16 accumulate in
float32 and round once on npu, as CPU does, so they are within one rounding
of the result dtype plus the float32 reordering (rtol 1e-3 / 1.6e-2).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch_npu

import npu_emu
from native_guard import native_only  # noqa: F401

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64]
TOL = {
    torch.float32: (1.3e-6, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
}


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed + 17 * len(shape) + sum(shape))
    if dtype.is_complex:
        return torch.complex(torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)).to(dtype)
    return torch.randn(*shape, generator=g).to(dtype)


def check(npu_result, cpu_result, k=1):
    rtol, atol = TOL[cpu_result.dtype]
    torch.npu.synchronize()
    assert npu_result.device.type == "npu"
    torch.testing.assert_close(npu_result.cpu(), cpu_result, rtol=rtol, atol=atol * math.sqrt(max(k, 1)))


def launches_during(f):
    before = dict(npu_emu.native_report())
    f()
    torch.npu.synchronize()
    return {op: n - before.get(op, 0) for op, n in npu_emu.native_report().items() if n != before.get(op, 0)}


# op name -> (function, input shapes, k of the product); every input is an npu or CPU tensor.
CASES = {
    "mm": (torch.mm, [(5, 7), (7, 3)], 7),
    "mm 1x1": (torch.mm, [(1, 1), (1, 1)], 1),
    "mm empty m": (torch.mm, [(0, 4), (4, 3)], 4),
    "mm empty k": (torch.mm, [(3, 0), (0, 2)], 0),
    "mm split across threads": (torch.mm, [(300, 70), (70, 290)], 70),
    "bmm": (torch.bmm, [(4, 5, 6), (4, 6, 3)], 6),
    "bmm empty batch": (torch.bmm, [(0, 5, 6), (0, 6, 3)], 6),
    "addmm": (lambda s, a, b: torch.addmm(s, a, b, beta=0.5, alpha=2), [(5, 3), (5, 7), (7, 3)], 7),
    "addmm bias row": (lambda s, a, b: torch.addmm(s, a, b), [(3,), (5, 7), (7, 3)], 7),
    "addmm beta 0": (lambda s, a, b: torch.addmm(s, a, b, beta=0), [(5, 3), (5, 7), (7, 3)], 7),
    "baddbmm": (lambda s, a, b: torch.baddbmm(s, a, b, beta=-1, alpha=0.5), [(1, 5, 3), (4, 5, 6), (4, 6, 3)], 6),
    "addbmm": (lambda s, a, b: torch.addbmm(s, a, b, beta=2, alpha=0.5), [(5, 3), (4, 5, 6), (4, 6, 3)], 24),
    "addbmm empty batch": (lambda s, a, b: torch.addbmm(s, a, b, beta=2), [(5, 3), (0, 5, 6), (0, 6, 3)], 0),
    "mv": (torch.mv, [(5, 7), (7,)], 7),
    "addmv": (lambda s, a, b: torch.addmv(s, a, b, beta=0.5, alpha=3), [(5,), (5, 7), (7,)], 7),
    "addmv scalar self": (lambda s, a, b: torch.addmv(s, a, b), [(1,), (5, 7), (7,)], 7),
    "dot": (torch.dot, [(9,), (9,)], 9),
    "vdot": (torch.vdot, [(9,), (9,)], 9),
    "addr": (lambda s, a, b: torch.addr(s, a, b, beta=2, alpha=-1), [(4, 3), (4,), (3,)], 1),
    "outer": (torch.outer, [(4,), (3,)], 1),
    "inner": (torch.inner, [(2, 5), (3, 5)], 5),
    "matmul 1d 1d": (torch.matmul, [(6,), (6,)], 6),
    "matmul 2d 1d": (torch.matmul, [(4, 6), (6,)], 6),
    "matmul 1d 3d": (torch.matmul, [(6,), (2, 6, 3)], 6),
    "matmul batch broadcast": (torch.matmul, [(2, 1, 4, 6), (3, 6, 5)], 6),
    "matmul 4d 2d": (torch.matmul, [(2, 3, 4, 6), (6, 5)], 6),
    "linear": (torch.nn.functional.linear, [(3, 4, 6), (5, 6), (5,)], 6),
    "einsum bmm": (lambda a, b: torch.einsum("bij,bjk->bik", a, b), [(3, 4, 6), (3, 6, 2)], 6),
    "tensordot": (lambda a, b: torch.tensordot(a, b, dims=2), [(3, 4, 5), (4, 5, 2)], 20),
    "multi_dot": (lambda a, b, c: torch.linalg.multi_dot([a, b, c]), [(3, 4), (4, 5), (5, 2)], 5),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_cpu(native_only, name, dtype):
    fn, shapes, k = CASES[name]
    cpu = [rand(*s, dtype=dtype, seed=i) for i, s in enumerate(shapes)]
    check(fn(*[t.npu() for t in cpu]), fn(*cpu), k)


def strided_operands(dtype):
    """(name, cpu a [5, 7], cpu b [7, 3]) laid out in ways the engine reads in place."""
    a = rand(5, 7, dtype=dtype)
    b = rand(7, 3, dtype=dtype, seed=1)
    return {
        "transposed a": (rand(7, 5, dtype=dtype).t(), b),
        "transposed b": (a, rand(3, 7, dtype=dtype, seed=1).t()),
        "both transposed": (rand(7, 5, dtype=dtype).t(), rand(3, 7, dtype=dtype, seed=1).t()),
        "sliced rows": (rand(12, 7, dtype=dtype)[2:12:2], b),
        "sliced columns": (rand(5, 14, dtype=dtype)[:, ::2], b),
        "expanded": (rand(1, 7, dtype=dtype).expand(5, 7), b),
    }


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_strided_operands(native_only, dtype):
    for name, (a, b) in strided_operands(dtype).items():
        an, bn = a.npu(), b.npu()  # .npu() keeps the strides of a dense view; build the others on npu below
        check(torch.mm(an, bn), torch.mm(a, b), 7)
    base = rand(9, 14, dtype=dtype)
    view = base.npu()[1:8, ::2]  # rows and columns strided on npu itself
    check(torch.mm(view, view.t()), torch.mm(base[1:8, ::2], base[1:8, ::2].t()), 7)
    batched = rand(3, 6, 5, dtype=dtype)
    check(torch.bmm(batched.npu().transpose(1, 2), batched.npu()), torch.bmm(batched.transpose(1, 2), batched), 6)
    check(torch.mv(base.npu().t(), base.npu()[:, 3]), torch.mv(base.t(), base[:, 3]), 9)


def test_transposed_operands_are_not_copied(native_only):
    a, b = rand(64, 48), rand(32, 48)
    an, bn = a.npu(), b.npu()
    launched = launches_during(lambda: torch.mm(an, bn.t()))
    assert launched == {"aclnnMm": 1}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.complex64], ids=str)
def test_out_and_inplace_forms(native_only, dtype):
    a, b, v, w = rand(5, 7, dtype=dtype), rand(7, 3, dtype=dtype, seed=1), rand(7, dtype=dtype, seed=2), rand(5, dtype=dtype, seed=3)
    b1, b2 = rand(4, 5, 6, dtype=dtype, seed=4), rand(4, 6, 3, dtype=dtype, seed=5)
    cases = {
        "mm": (torch.mm, (a, b), (5, 3)),
        "bmm": (torch.bmm, (b1, b2), (4, 5, 3)),
        "addmm": (lambda s, x, y, out=None: torch.addmm(s, x, y, beta=2, out=out), (rand(5, 3, dtype=dtype), a, b), (5, 3)),
        "baddbmm": (torch.baddbmm, (rand(4, 5, 3, dtype=dtype), b1, b2), (4, 5, 3)),
        "addbmm": (torch.addbmm, (rand(5, 3, dtype=dtype), b1, b2), (5, 3)),
        "mv": (torch.mv, (a, v), (5,)),
        "addmv": (torch.addmv, (w, a, v), (5,)),
        "dot": (torch.dot, (v, v), ()),
        "vdot": (torch.vdot, (v, v.flip(0)), ()),
        "addr": (torch.addr, (rand(5, 7, dtype=dtype), w, v), (5, 7)),
        "matmul": (torch.matmul, (b1, rand(6, 3, dtype=dtype)), (4, 5, 3)),
    }
    for name, (fn, args, shape) in cases.items():
        expected = fn(*args)
        out = torch.empty(0, dtype=dtype).npu()  # resized, as on CPU
        result = fn(*[t.npu() for t in args], out=out)
        assert result is out and out.shape == shape, name
        check(out, expected, 24)
        if name == "matmul":
            continue  # CPU's matmul refuses a folded out that is not viewable, as npu does
        strided_out = torch.empty(shape[::-1], dtype=dtype).npu().permute(list(reversed(range(len(shape)))))
        fn(*[t.npu() for t in args], out=strided_out)
        check(strided_out, expected, 24)
    inplace = {
        "addmm_": (lambda s, x, y: s.addmm_(x, y, beta=0.5, alpha=2), (rand(5, 3, dtype=dtype), a, b)),
        "baddbmm_": (lambda s, x, y: s.baddbmm_(x, y, alpha=2), (rand(4, 5, 3, dtype=dtype), b1, b2)),
        "addbmm_": (lambda s, x, y: s.addbmm_(x, y, beta=-1), (rand(5, 3, dtype=dtype), b1, b2)),
        "addmv_": (lambda s, x, y: s.addmv_(x, y, beta=2), (w, a, v)),
        "addr_": (lambda s, x, y: s.addr_(x, y, alpha=3), (rand(5, 7, dtype=dtype), w, v)),
    }
    for name, (fn, args) in inplace.items():
        npu_args = [t.npu() for t in args]
        result = fn(*npu_args)
        assert result is npu_args[0], name
        check(npu_args[0], fn(*[t.clone() for t in args]), 24)


def test_beta_zero_ignores_nan_in_self(native_only):
    s = torch.full((5, 3), float("nan"))
    a, b = rand(5, 7), rand(7, 3)
    result = torch.addmm(s.npu(), a.npu(), b.npu(), beta=0).cpu()
    assert not result.isnan().any()
    check(torch.addmm(s.npu(), a.npu(), b.npu(), beta=0), a @ b, 7)
    check(torch.addmv(s[:, 0].npu(), a.npu(), b[:, 0].npu(), beta=0), a @ b[:, 0], 7)
    check(torch.addr(s.npu(), a[:, 0].npu(), b[0].npu(), beta=0), torch.outer(a[:, 0], b[0]))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32], ids=str)
def test_integer_products(native_only, dtype):
    a = torch.randint(-50, 50, (6, 9), dtype=dtype)
    b = torch.randint(-50, 50, (9, 4), dtype=dtype)
    assert torch.equal(torch.mm(a.npu(), b.npu()).cpu(), torch.mm(a, b))
    assert torch.equal(torch.addmm(b[:4, :].npu().t()[:1], a.npu(), b.npu(), beta=2, alpha=3).cpu(),
                       torch.addmm(b[:4, :].t()[:1], a, b, beta=2, alpha=3))
    assert torch.equal(torch.dot(a[0].npu(), a[1].npu()).cpu(), torch.dot(a[0], a[1]))


def test_addr_promotes_like_cpu(native_only):
    s = torch.arange(12, dtype=torch.int64).reshape(4, 3)
    v1, v2 = rand(4), rand(3, seed=1)
    check(torch.addr(s.npu(), v1.npu(), v2.npu()), torch.addr(s, v1, v2))
    out = torch.empty(4, 3, dtype=torch.float64).npu()
    torch.addr(s.npu(), v1.npu(), v2.npu(), out=out)
    check(out, torch.addr(s, v1, v2).double())


def test_argument_errors_match_cpu():
    a, b = rand(5, 7), rand(6, 3)
    for fn, args in [(torch.mm, (a, b)), (torch.bmm, (rand(2, 3, 4), rand(3, 4, 2))),
                     (torch.mv, (a, rand(6))), (torch.dot, (rand(3), rand(4))),
                     (torch.addbmm, (rand(3, 2), rand(2, 3, 4), rand(2, 5, 2))),
                     (torch.addr, (rand(3, 3), rand(3, 2), rand(3)))]:
        with pytest.raises(RuntimeError) as cpu_error:
            fn(*args)
        with pytest.raises(cpu_error.type):
            fn(*[t.npu() for t in args])
    with pytest.raises(RuntimeError, match="one dtype"):
        torch.mm(a.npu(), rand(7, 3).double().npu())
    with pytest.raises(RuntimeError, match="Boolean beta only supported"):
        torch.addr(rand(3, 3).npu(), rand(3).npu(), rand(3).npu(), beta=True)
    with pytest.raises(RuntimeError, match="same device"):
        torch.addr(rand(2, 2).npu(), rand(2).npu(), rand(2).npu(), out=torch.empty(2, 2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_backward_matches_cpu(native_only, dtype):
    x, w, bias = rand(3, 4, 6, dtype=dtype), rand(5, 6, dtype=dtype, seed=1), rand(5, dtype=dtype, seed=2)
    y = rand(3, 6, 2, dtype=dtype, seed=3)
    grads = {}
    for device in ("cpu", "npu"):
        leaves = [t.detach().clone().to(device).requires_grad_() for t in (x, w, bias, y)]
        xl, wl, bl, yl = leaves
        out = torch.nn.functional.linear(xl, wl, bl).sum() + (xl @ yl).square().sum() + torch.einsum("bij,bjk->bik", xl, yl).mean()
        out.backward()
        grads[device] = [t.grad for t in leaves]
    for g_npu, g_cpu in zip(grads["npu"], grads["cpu"]):
        check(g_npu, g_cpu, 24)


def test_gradcheck_float64(native_only):
    def leaves(*shapes):
        return [rand(*s, dtype=torch.float64, seed=i).npu().requires_grad_() for i, s in enumerate(shapes)]

    assert torch.autograd.gradcheck(torch.mm, leaves((3, 4), (4, 2)))
    assert torch.autograd.gradcheck(lambda s, a, b: torch.addmm(s, a, b, beta=0.5, alpha=2), leaves((2,), (3, 4), (4, 2)))
    assert torch.autograd.gradcheck(torch.bmm, leaves((2, 3, 4), (2, 4, 2)))
    assert torch.autograd.gradcheck(lambda s, a, b: torch.baddbmm(s, a, b, alpha=3), leaves((2, 3, 2), (2, 3, 4), (2, 4, 2)))
    assert torch.autograd.gradcheck(lambda s, a, b: torch.addbmm(s, a, b, beta=2), leaves((3, 2), (2, 3, 4), (2, 4, 2)))
    assert torch.autograd.gradcheck(torch.mv, leaves((3, 4), (4,)))
    assert torch.autograd.gradcheck(torch.addmv, leaves((3,), (3, 4), (4,)))
    assert torch.autograd.gradcheck(torch.dot, leaves((4,), (4,)))
    assert torch.autograd.gradcheck(lambda s, a, b: torch.addr(s, a, b, alpha=2), leaves((3, 2), (3,), (2,)))
    assert torch.autograd.gradcheck(torch.matmul, leaves((2, 1, 3, 4), (3, 4, 2)))


def test_nz_operand_needs_no_format_cast(native_only):
    a, b = rand(33, 20), rand(20, 17, seed=1)
    an = torch_npu.npu_format_cast(a.npu(), 29)
    bn = b.npu()
    launched = launches_during(lambda: an @ bn)
    assert "aclnnNpuFormatCast" not in launched and launched.get("aclnnMm") == 1
    check(an @ bn, a @ b, 20)
    # Both operands and an in-place accumulation into an NZ self.
    b_nz = torch_npu.npu_format_cast(bn, 29)
    s_nz = torch_npu.npu_format_cast(rand(33, 17, seed=2).npu(), 29)
    expected = torch.addmm(rand(33, 17, seed=2), a, b, beta=0.5)
    launched = launches_during(lambda: s_nz.addmm_(an, b_nz, beta=0.5))
    assert "aclnnNpuFormatCast" not in launched
    assert torch_npu.get_npu_format(s_nz) == 29
    check(s_nz, expected, 20)


def test_nz_linear_weight_forward_backward(native_only):
    x, w = rand(8, 20), rand(12, 20, seed=1)
    wn = torch_npu.npu_format_cast(w.npu(), 29).requires_grad_()
    xn = x.npu().requires_grad_()
    out = torch.nn.functional.linear(xn, wn)
    out.sum().backward()
    wc, xc = w.clone().requires_grad_(), x.clone().requires_grad_()
    torch.nn.functional.linear(xc, wc).sum().backward()
    check(out, torch.nn.functional.linear(x, w), 20)
    check(wn.grad, wc.grad, 8)
    check(xn.grad, xc.grad, 12)
    assert torch_npu.get_npu_format(wn) == 29


def test_conjugate_views(native_only):
    a, b = rand(4, 5, dtype=torch.complex64), rand(5, 3, dtype=torch.complex64, seed=1)
    an, bn = a.npu(), b.npu()
    check(torch.mm(an.conj(), bn), torch.mm(a.conj(), b), 5)
    check(an.mH @ an, a.mH @ a, 4)
    check(torch.dot(an[0].conj(), an[1]), torch.dot(a[0].conj(), a[1]), 5)
    check(torch.vdot(an[0], an[1].conj()), torch.vdot(a[0], a[1].conj()), 5)
    check(torch.addmm(bn[0].conj(), an, bn.conj(), beta=2), torch.addmm(b[0].conj(), a, b.conj(), beta=2), 5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32], ids=str)
def test_nz_operands_read_in_place(native_only, dtype):
    """The engine reads FRACTAL_NZ operands (padded rows and columns, a
    transposed NZ weight, 3-D batches) without a format cast."""
    def make(*shape, seed=0):
        return (torch.randint(-8, 8, shape, generator=torch.Generator().manual_seed(seed))).to(dtype)

    a, w, b3, c3 = make(33, 20), make(17, 20, seed=1), make(3, 18, 20, seed=2), make(3, 20, 5, seed=3)
    a_nz, w_nz = (torch_npu.npu_format_cast(t.npu(), 29) for t in (a, w))
    b3_nz, c3_nz = (torch_npu.npu_format_cast(t.npu(), 29) for t in (b3, c3))
    cases = {
        "nz @ transposed nz": (lambda: a_nz @ w_nz.t(), a @ w.t()),
        "transposed nz @ nd": (lambda: w_nz.t().mm(torch.ones(17, 4, dtype=dtype).npu()), w.t().mm(torch.ones(17, 4, dtype=dtype))),
        "bmm nz": (lambda: torch.bmm(b3_nz, c3_nz), torch.bmm(b3, c3)),
        "baddbmm nz": (lambda: torch.baddbmm(torch.ones(3, 18, 5, dtype=dtype).npu(), b3_nz, c3_nz, alpha=2),
                       torch.baddbmm(torch.ones(3, 18, 5, dtype=dtype), b3, c3, alpha=2)),
        "addmm nz": (lambda: torch.addmm(torch.ones(17, dtype=dtype).npu(), a_nz, w_nz.t(), beta=3),
                     torch.addmm(torch.ones(17, dtype=dtype), a, w.t(), beta=3)),
    }
    for name, (fn, expected) in cases.items():
        result = []
        launched = launches_during(lambda: result.append(fn()))
        assert "aclnnNpuFormatCast" not in launched, name
        # Small integers: every product and sum is exact in every dtype here.
        assert torch.equal(result[0].cpu(), expected), name


# Shapes against the bfloat16 kernel's blocking on CPUs with AVX512-BF16
# (kernels/linalg/gemm_bf16_avx512.cpp: 14 x 32 tiles, k in blocks of 256,
# tasks of 8 x 8 tiles): m, n off the tiles, odd k, k across blocks, several
# tasks, transposed and sliced operands, beta != 0, batches with a broadcast
# operand and addbmm's reduced batch. Elsewhere they run the float32 path.
BF16_KERNEL_CASES = {
    "mm odd": (torch.mm, [(37, 263), (263, 45)], 263),
    "mm tasks": (torch.mm, [(300, 517), (517, 290)], 517),
    "mm transposed b": (lambda a, b: torch.mm(a, b.t()), [(129, 301), (70, 301)], 301),
    "mm transposed a": (lambda a, b: torch.mm(a.t(), b), [(45, 117), (45, 70)], 45),
    "mm sliced": (lambda a, b: torch.mm(a[::2, 1::3], b[:, ::2]), [(40, 90), (30, 66)], 30),
    "addmm": (lambda s, a, b: torch.addmm(s, a, b, beta=0.75, alpha=-1.5), [(37, 45), (37, 29), (29, 45)], 29),
    "baddbmm broadcast": (lambda s, a, b: torch.baddbmm(s, a, b.expand(3, -1, -1), beta=1, alpha=1),
                          [(3, 117, 70), (3, 117, 45), (1, 45, 70)], 45),
    "addbmm": (lambda s, a, b: torch.addbmm(s, a, b, beta=2, alpha=0.5), [(40, 50), (3, 40, 33), (3, 33, 50)], 99),
    "linear": (torch.nn.functional.linear, [(4, 20, 63), (48, 63), (48,)], 63),
}


@pytest.mark.parametrize("name", list(BF16_KERNEL_CASES))
def test_bfloat16_kernel_shapes_match_cpu(native_only, name):
    fn, shapes, k = BF16_KERNEL_CASES[name]
    cpu = [rand(*s, dtype=torch.bfloat16, seed=i) for i, s in enumerate(shapes)]
    check(fn(*[t.npu() for t in cpu]), fn(*cpu), k)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.2, 0.6), (2, -0.3), (0, 2)])
def test_reduced_float_addr_rounds_every_step_as_cpu(native_only, dtype, beta, alpha):
    # CPU's Half/BFloat16 addr rounds after each product and the sum; npu
    # matches it bit for bit (a single float32 rounding differs on ~30 % of
    # the elements of such samples).
    s = rand(37, 29, dtype=dtype)
    if beta == 0:
        s[0, 0] = float("nan")  # ignored, not propagated
    v1, v2 = rand(74, dtype=dtype, seed=1)[::2], rand(29, dtype=dtype, seed=2)
    expected = torch.addr(s, v1, v2, beta=beta, alpha=alpha)
    assert torch.equal(torch.addr(s.npu(), v1.npu(), v2.npu(),
                                  beta=beta, alpha=alpha).cpu(), expected)
    row = s[:1].npu()  # self broadcast over the rows
    assert torch.equal(torch.addr(row, v1.npu(), v2.npu(), beta=beta, alpha=alpha).cpu(),
                       torch.addr(s[:1], v1, v2, beta=beta, alpha=alpha))
    inplace = s.npu()
    inplace.addr_(v1.npu(), v2.npu(), beta=beta, alpha=alpha)
    assert torch.equal(inplace.cpu(), expected)


@pytest.mark.parametrize("beta,alpha", [(True, True), (False, True), (True, False), (False, False)])
def test_bool_addr_is_logical_as_cpu(native_only, beta, alpha):
    g = torch.Generator().manual_seed(3)
    s = torch.rand(6, 5, generator=g) > 0.5
    v1, v2 = torch.rand(6, generator=g) > 0.5, torch.rand(5, generator=g) > 0.3
    assert torch.equal(torch.addr(s.npu(), v1.npu(), v2.npu(), beta=beta, alpha=alpha).cpu(),
                       torch.addr(s, v1, v2, beta=beta, alpha=alpha))


@pytest.mark.parametrize("name", ["dot", "vdot", "mv", "addr", "addbmm"])
def test_hand_written_matrix_products_check_devices_in_pytorchs_words(name):
    """A CPU argument among npu ones: PyTorch's wrapper device check (what
    CUDA raises and test_linalg's test_dot_invalid_args expects), naming the
    argument and the method."""
    x = torch.randn(3)
    y, m = torch.randn(3, device="npu"), torch.randn(3, 3, device="npu")
    call = {"dot": lambda: torch.dot(x, y), "vdot": lambda: torch.vdot(y, x), "mv": lambda: torch.mv(m, x),
            "addr": lambda: torch.addr(m, x, y),
            "addbmm": lambda: torch.addbmm(m, m[None], x.view(1, 3, 1).expand(1, 3, 3))}[name]
    with pytest.raises(RuntimeError, match=rf"^Expected all tensors to be on the same device, .* in method {name}\)"):
        call()
