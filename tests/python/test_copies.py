"""Host<->device and device<->device copies: exact, for every dtype and layout."""

import pytest
import torch

from conftest import ALL_DTYPES, make_tensor


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(dtype):
    src = make_tensor((7, 13), dtype)
    dev = src.npu()
    assert dev.dtype == dtype and dev.is_npu
    back = dev.cpu()
    assert torch.equal(back, src)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_device_to_device_copy(dtype):
    src = make_tensor((4, 9), dtype, seed=1)
    a = src.npu()
    b = a.clone()
    a.zero_()
    assert torch.equal(b.cpu(), src)
    assert torch.equal(a.cpu(), torch.zeros_like(src))


def test_strided_views_both_directions():
    src = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    dev = src.npu()
    for view in (lambda t: t.transpose(0, 2), lambda t: t[:, ::2, 1:], lambda t: t.permute(1, 2, 0)[1],
                 lambda t: t.expand(2, 3, 4, 5)):
        assert torch.equal(view(dev).cpu(), view(src))
        assert torch.equal(view(dev).contiguous().cpu(), view(src).contiguous())
    # H2D into a non-contiguous destination leaves the other elements alone.
    dst = torch.zeros(4, 6).npu()
    dst[:, ::2] = torch.arange(12.0).reshape(4, 3)
    expected = torch.zeros(4, 6)
    expected[:, ::2] = torch.arange(12.0).reshape(4, 3)
    assert torch.equal(dst.cpu(), expected)
    # From a non-contiguous host source.
    host = torch.arange(20.0).reshape(4, 5).t()
    assert torch.equal(host.npu().cpu(), host)


def test_copy_converts_dtype_and_broadcasts():
    dst = torch.empty(3, 4, dtype=torch.float16, device="npu")
    dst.copy_(torch.arange(4, dtype=torch.int64))
    assert torch.equal(dst.cpu(), torch.arange(4).to(torch.float16).expand(3, 4))
    x = torch.tensor([1.7, -2.2, 0.0]).npu()
    assert torch.equal(x.to(torch.int32).cpu(), torch.tensor([1, -2, 0], dtype=torch.int32))
    assert torch.equal(x.to(torch.bool).cpu(), torch.tensor([True, True, False]))
    assert torch.equal(x.cpu().to(torch.complex64), x.to(torch.complex64).cpu())


def test_fill_and_zero():
    x = torch.empty(5, 5, dtype=torch.int16, device="npu")
    x.fill_(-3)
    assert torch.equal(x.cpu(), torch.full((5, 5), -3, dtype=torch.int16))
    x[1:3].zero_()
    expected = torch.full((5, 5), -3, dtype=torch.int16)
    expected[1:3] = 0
    assert torch.equal(x.cpu(), expected)
    y = torch.empty(4, device="npu").fill_(torch.tensor(2.5))
    assert y.cpu().tolist() == [2.5] * 4


BIG_UINT64 = [2**63, 2**63 + 5, 2**64 - 1]


@pytest.mark.parametrize("value", BIG_UINT64)
@pytest.mark.parametrize("dtype", [torch.uint64, torch.float64, torch.float32, torch.complex64])
def test_fill_with_uint64_values_above_int64_max(value, dtype):
    """A uint64 value beyond int64 fills as on CPU: exactly into uint64 (also through torch.full), as its
    floating-point value into floating and complex tensors."""
    x = torch.empty(3, dtype=dtype, device="npu").fill_(value)
    assert torch.equal(x.cpu(), torch.empty(3, dtype=dtype).fill_(value))
    assert torch.equal(torch.full((2, 2), value, dtype=dtype, device="npu").cpu(), torch.full((2, 2), value, dtype=dtype))


def test_deterministic_empty_uint64_fills_the_maximum():
    """With deterministic algorithms, a new uint64 tensor is filled with its dtype's maximum, as CPU fills it."""
    torch.use_deterministic_algorithms(True)
    try:
        x = torch.empty(4, dtype=torch.uint64, device="npu")
        y = torch.ones(2, dtype=torch.uint64, device="npu").resize_(5)
    finally:
        torch.use_deterministic_algorithms(False)
    assert x.cpu().tolist() == [2**64 - 1] * 4
    assert y.cpu().tolist() == [1, 1] + [2**64 - 1] * 3


def test_item_and_zero_size():
    assert torch.tensor([3.25]).npu().item() == 3.25
    empty = torch.empty(0, 3, device="npu")
    assert empty.cpu().shape == (0, 3)
    assert torch.ones(0).npu().add(1).shape == (0,)


def test_non_blocking_copies_from_pinned_memory():
    host = torch.arange(1000, dtype=torch.float32).pin_memory()
    dev = host.to("npu", non_blocking=True)
    torch.npu.synchronize()
    back = torch.empty(1000).pin_memory()
    back.copy_(dev, non_blocking=True)
    torch.npu.synchronize()
    assert torch.equal(back, host)


def test_conjugate_and_negative_views_clone_and_copy():
    """Lazy conj/neg views are materialised once (PyTorch's fallback for them
    clones, which must not recurse), also inside autograd (polar's backward)."""
    z = torch.randn(4, 3, dtype=torch.complex64)
    zn = z.npu()
    assert torch.equal(zn.conj().clone().cpu(), z.conj().resolve_conj())
    assert torch.equal(zn.conj().imag.clone().cpu(), z.conj().imag.clone())
    assert torch.equal((zn.conj() * 2).cpu(), z.conj() * 2)
    assert torch.equal(zn.conj().cpu(), z.conj().resolve_conj())
    a, b = torch.randn(5, requires_grad=True), torch.randn(5, requires_grad=True)
    an, bn = a.detach().npu().requires_grad_(), b.detach().npu().requires_grad_()
    g = torch.randn(5, dtype=torch.complex64)
    expected = torch.autograd.grad(torch.polar(a, b), (a, b), g)
    got = torch.autograd.grad(torch.polar(an, bn), (an, bn), g.npu())
    for x, y in zip(got, expected):
        torch.testing.assert_close(x.cpu(), y)


OVERLAPPING_COPIES = {
    # destination, source (built on `device`): each refused by CPU's copy_
    "expanded destination": lambda d: (torch.zeros(1, device=d).expand(4), torch.arange(4.0, device=d)),
    "expanded destination, CPU source": lambda d: (torch.zeros(1, device=d).expand(4), torch.arange(4.0)),
    "expanded destination, other dtype": lambda d: (torch.zeros(2, 1, device=d).expand(2, 3),
                                                    torch.ones(2, 3, dtype=torch.int64, device=d)),
    "shifted view of the source": lambda d: (lambda x: (x[1:], x[:-1]))(torch.arange(5.0, device=d)),
    "transposed view of the source": lambda d: (lambda x: (x, x.t()))(torch.arange(9.0, device=d).view(3, 3)),
}


@pytest.mark.parametrize("case", list(OVERLAPPING_COPIES))
def test_overlapping_copies_are_refused_as_on_cpu(case):
    make = OVERLAPPING_COPIES[case]
    cpu_dst, cpu_src = make("cpu")
    with pytest.raises(RuntimeError, match="unsupported operation") as cpu_error:
        cpu_dst.copy_(cpu_src)
    dst, src = make("npu")
    before = dst.cpu().clone()
    with pytest.raises(RuntimeError, match="unsupported operation") as npu_error:
        dst.copy_(src)
    assert str(npu_error.value).splitlines()[0] == str(cpu_error.value).splitlines()[0]
    assert torch.equal(dst.cpu(), before), "a refused copy must not write"


def test_copies_that_cpu_allows_still_work():
    x = torch.arange(5.0, device="npu")
    assert torch.equal(x.copy_(x).cpu(), torch.arange(5.0))  # the same tensor
    dst = torch.zeros(4, device="npu")
    dst.copy_(torch.ones(1, device="npu").expand(4))  # an expanded source is fine
    assert torch.equal(dst.cpu(), torch.ones(4))
    y = torch.arange(6.0, device="npu")
    y[:3].copy_(y[3:])  # disjoint views of one storage
    assert torch.equal(y.cpu(), torch.tensor([3.0, 4.0, 5.0, 3.0, 4.0, 5.0]))
