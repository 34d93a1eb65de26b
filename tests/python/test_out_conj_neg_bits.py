"""Ops writing into a tensor whose conjugate or negative bit is set.

PyTorch's Conjugate/Negative keys resolve a written tensor's bit for most
ops, but pass it through to the backend for the matrix products (mm.out,
bmm.out, addmm.out/addmm_, baddbmm.out/baddbmm_, dot.out, vdot.out), whose
CPU kernels honour it. Reading the written tensor must give the op's result,
as on CPU, whichever route the op takes.
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch

from conftest import make_tensor
from native_guard import native_only  # noqa: F401  (fixture)

Op = Callable[..., torch.Tensor]

# name -> (call with out=, argument shapes, result shape)
OUT_OPS: dict[str, tuple[Op, list[tuple[int, ...]], tuple[int, ...]]] = {
    "mm": (lambda a, b, out: torch.mm(a, b, out=out), [(2, 3), (3, 4)], (2, 4)),
    "addmm": (lambda s, a, b, out: torch.addmm(s, a, b, beta=2, alpha=3, out=out), [(2, 4), (2, 3), (3, 4)], (2, 4)),
    "bmm": (lambda a, b, out: torch.bmm(a, b, out=out), [(2, 2, 3), (2, 3, 4)], (2, 2, 4)),
    "baddbmm": (lambda s, a, b, out: torch.baddbmm(s, a, b, beta=2, out=out), [(2, 2, 4), (2, 2, 3), (2, 3, 4)],
                (2, 2, 4)),
    "addbmm": (lambda s, a, b, out: torch.addbmm(s, a, b, out=out), [(2, 4), (2, 2, 3), (2, 3, 4)], (2, 4)),
    "matmul_2d": (lambda a, b, out: torch.matmul(a, b, out=out), [(2, 3), (3, 4)], (2, 4)),
    "matmul_3d": (lambda a, b, out: torch.matmul(a, b, out=out), [(2, 2, 3), (2, 3, 4)], (2, 2, 4)),
    "dot": (lambda a, b, out: torch.dot(a, b, out=out), [(5,), (5,)], ()),
    "vdot": (lambda a, b, out: torch.vdot(a, b, out=out), [(5,), (5,)], ()),
    "mv": (lambda a, b, out: torch.mv(a, b, out=out), [(2, 3), (3,)], (2,)),
    "addmv": (lambda s, a, b, out: torch.addmv(s, a, b, out=out), [(2,), (2, 3), (3,)], (2,)),
    "addr": (lambda s, a, b, out: torch.addr(s, a, b, out=out), [(2, 3), (2,), (3,)], (2, 3)),
    "add": (lambda a, b, out: torch.add(a, b, alpha=2, out=out), [(2, 3), (2, 3)], (2, 3)),
    "mul": (lambda a, b, out: torch.mul(a, b, out=out), [(2, 3), (2, 3)], (2, 3)),
    "exp": (lambda a, out: torch.exp(a, out=out), [(2, 3)], (2, 3)),
    "neg": (lambda a, out: torch.neg(a, out=out), [(2, 3)], (2, 3)),
    "sum": (lambda a, out: torch.sum(a, 1, out=out), [(2, 3)], (2,)),
}

# How the written tensor carries a bit: (dtype of the operands, maker of the bit-carrying tensor).
BITS: dict[str, tuple[torch.dtype, Callable[[torch.Tensor], torch.Tensor]]] = {
    "conj": (torch.complex64, lambda plain: plain.conj()),
    "neg": (torch.complex64, lambda plain: torch._neg_view(plain)),
    "neg_real": (torch.float32, lambda plain: torch.view_as_complex(plain).conj().imag),
}


def with_bit(bit: str, shape: tuple[int, ...], device: str, fill: torch.Tensor | None = None) -> torch.Tensor:
    """A tensor of `shape` with the bit set, reading `fill` (zeros if None)."""
    dtype, make = BITS[bit]
    store_shape = (*shape, 2) if bit == "neg_real" else shape
    viewed = make(torch.zeros(store_shape, dtype=dtype, device=device))
    assert viewed.is_conj() or viewed.is_neg()
    if fill is not None:
        viewed.copy_(fill.to(device))
    return viewed


def inputs(shapes: list[tuple[int, ...]], dtype: torch.dtype) -> list[torch.Tensor]:
    """Operands with nonzero imaginary parts when complex (a conjugate must show)."""
    real = dtype.to_real()
    made = []
    for i, shape in enumerate(shapes):
        t = make_tensor(shape, real, seed=2 * i) / 10
        if dtype.is_complex:
            t = torch.complex(t, make_tensor(shape, real, seed=2 * i + 1) / 10)
        made.append(t)
    return made


def check_same(npu: torch.Tensor, cpu: torch.Tensor) -> None:
    assert (npu.is_conj(), npu.is_neg()) == (cpu.is_conj(), cpu.is_neg())
    torch.testing.assert_close(npu.cpu(), cpu, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bit", BITS)
@pytest.mark.parametrize("name", OUT_OPS)
def test_out_with_bit_reads_as_the_result(name: str, bit: str) -> None:
    op, shapes, result_shape = OUT_OPS[name]
    args = inputs(shapes, BITS[bit][0])
    results = []
    for device in ("cpu", "npu"):
        out = with_bit(bit, result_shape, device)
        returned = op(*(a.to(device) for a in args), out=out)
        assert returned is out
        results.append(out)
    cpu, npu = results
    check_same(npu, cpu)
    torch.testing.assert_close(cpu, op(*args, out=torch.empty(result_shape, dtype=cpu.dtype)), rtol=1e-5,
                               atol=1e-5)


def test_out_with_bit_is_resized_as_on_cpu() -> None:
    a, b = inputs([(2, 3), (3, 4)], torch.complex64)
    results = []
    for device in ("cpu", "npu"):
        out = with_bit("conj", (0,), device)
        torch.mm(a.to(device), b.to(device), out=out)
        results.append(out)
    assert results[1].shape == (2, 4)
    check_same(*reversed(results))


def test_out_with_bit_aliasing_an_input() -> None:
    """out is the conjugate view of an operand: the operand is read before it is overwritten."""
    a, b = inputs([(3, 3), (3, 3)], torch.complex64)
    results = []
    for device in ("cpu", "npu"):
        base = b.to(device).clone()
        torch.mm(a.to(device), base, out=base.conj())
        results.append(base)
    torch.testing.assert_close(results[1].cpu(), results[0], rtol=1e-5, atol=1e-5)


# name -> (in-place call on self, shape of self, shapes of the other arguments)
INPLACE_OPS: dict[str, tuple[Op, tuple[int, ...], list[tuple[int, ...]]]] = {
    "addmm_": (lambda s, a, b: s.addmm_(a, b, beta=2), (2, 4), [(2, 3), (3, 4)]),
    "baddbmm_": (lambda s, a, b: s.baddbmm_(a, b, alpha=2), (2, 2, 4), [(2, 2, 3), (2, 3, 4)]),
    "addbmm_": (lambda s, a, b: s.addbmm_(a, b), (2, 4), [(2, 2, 3), (2, 3, 4)]),
    "addmv_": (lambda s, a, b: s.addmv_(a, b), (2,), [(2, 3), (3,)]),
    "addr_": (lambda s, a, b: s.addr_(a, b), (2, 3), [(2,), (3,)]),
    "add_": (lambda s, a: s.add_(a, alpha=2), (2, 3), [(2, 3)]),
    "mul_": (lambda s, a: s.mul_(a), (2, 3), [(2, 3)]),
    "exp_": (lambda s: s.exp_(), (2, 3), []),
    "neg_": (lambda s: s.neg_(), (2, 3), []),
    "conj_physical_": (lambda s: s.conj_physical_(), (2, 3), []),
}


@pytest.mark.parametrize("bit", BITS)
@pytest.mark.parametrize("name", INPLACE_OPS)
def test_inplace_on_a_view_with_bit(name: str, bit: str) -> None:
    op, self_shape, shapes = INPLACE_OPS[name]
    dtype = BITS[bit][0]
    start, *args = inputs([self_shape, *shapes], dtype)
    results = []
    for device in ("cpu", "npu"):
        view = with_bit(bit, self_shape, device, fill=start)
        returned = op(view, *(a.to(device) for a in args))
        assert returned is view
        results.append(view)
    cpu, npu = results
    check_same(npu, cpu)
    torch.testing.assert_close(cpu, op(start.clone(), *args), rtol=1e-5, atol=1e-5)


def read(t: torch.Tensor) -> torch.Tensor:
    """`t`'s values on the CPU, bits resolved there (the device copy reads plain memory)."""
    return t.conj().cpu().conj() if t.is_conj() else t.cpu()


@pytest.mark.parametrize("name", ["mm", "addmm", "bmm", "baddbmm", "dot", "vdot"])
def test_matrix_product_into_a_conj_out_stays_native(name: str, native_only) -> None:
    op, shapes, result_shape = OUT_OPS[name]
    args = inputs(shapes, torch.complex64)
    out = with_bit("conj", result_shape, "npu")
    op(*(a.to("npu") for a in args), out=out)
    torch.testing.assert_close(read(out), op(*args, out=torch.empty(result_shape, dtype=torch.complex64)),
                               rtol=1e-5, atol=1e-5)


def test_copy_into_a_conj_view_stays_native(native_only) -> None:
    src, = inputs([(3, 4)], torch.complex64)
    for source in (src.to("npu"), src.to("npu").conj(), src):
        view = torch.zeros(3, 4, dtype=torch.complex64, device="npu").conj()
        view.copy_(source)
        torch.testing.assert_close(read(view), read(source).resolve_conj(), rtol=0, atol=0)
