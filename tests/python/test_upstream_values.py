"""Wrong values PyTorch's own test files found on npu (issue 12, item 9).

- bool tensors whose bytes are 2..255 read as true everywhere;
- abs(-0.0) is +0.0;
- in-place and out= ops on conjugate / negative views write the base;
- deterministic mode fills empty / resize_ memory as CPU does;
- Tensor.storage_type() and the typed storages of npu tensors.
"""

from __future__ import annotations

import pytest
import torch

import npu_emu  # noqa: F401

# --------------------------------------------------------------------------
# bool tensors with bytes other than 0 and 1

_BYTES = torch.tensor([[0, 1, 2, 254], [255, 0, 127, 1], [3, 0, 0, 128]], dtype=torch.uint8)
_OTHER = torch.tensor([[1, 1, 0, 7], [200, 0, 1, 0], [1, 9, 0, 1]], dtype=torch.uint8)


def _stray_bools():
    """(bool view of raw bytes on npu, the same on CPU, the 0/1 bool meaning)."""
    return _BYTES.npu().view(torch.bool), _BYTES.view(torch.bool), _BYTES != 0


def _other_bools():
    return _OTHER.npu().view(torch.bool), _OTHER != 0


# Each op gets (b, o, x): bool tensors b and o (bytes 0..255) and a float x of
# their shape. The reference runs the same op on CPU on bools holding 0/1,
# which is how PyTorch's CPU kernels read any nonzero byte.
_X = torch.arange(12, dtype=torch.float32).reshape(3, 4) - 5
_BOOL_OPS = {
    "eq_true": lambda b, o, x: b == True,  # noqa: E712
    "ne_false": lambda b, o, x: b != False,  # noqa: E712
    "eq_tensor": lambda b, o, x: b == o,
    "ne_tensor": lambda b, o, x: b != o,
    "lt": lambda b, o, x: b < o,
    "ge": lambda b, o, x: b >= o,
    "logical_and": lambda b, o, x: torch.logical_and(b, o),
    "logical_xor": lambda b, o, x: torch.logical_xor(b, o),
    "logical_not": lambda b, o, x: torch.logical_not(b),
    "bitwise_and": lambda b, o, x: b & o,
    "bitwise_or": lambda b, o, x: b | o,
    "bitwise_xor": lambda b, o, x: b ^ o,
    "bitwise_not": lambda b, o, x: ~b,
    "add": lambda b, o, x: b + o,
    "mul": lambda b, o, x: b * o,
    "maximum": lambda b, o, x: torch.maximum(b, o),
    "minimum": lambda b, o, x: torch.minimum(b, o),
    "sum": lambda b, o, x: b.sum(),
    "sum_dim": lambda b, o, x: b.sum(dim=1),
    "sum_strided": lambda b, o, x: b.t().sum(dim=1),
    "prod_dim": lambda b, o, x: b.prod(dim=0),
    "any_dim": lambda b, o, x: b.any(dim=1),
    "all_dim": lambda b, o, x: b.all(dim=0),
    "all": lambda b, o, x: b.all(),
    "amax": lambda b, o, x: b.amax(dim=1),
    "amin": lambda b, o, x: b.amin(dim=0),
    "cumsum": lambda b, o, x: b.cumsum(dim=1),
    "count_nonzero": lambda b, o, x: torch.count_nonzero(b),
    "to_int32": lambda b, o, x: b.to(torch.int32),
    "to_float": lambda b, o, x: b.float(),
    "to_half_strided": lambda b, o, x: b.t().half(),
    "clone": lambda b, o, x: b.clone(),
    "where": lambda b, o, x: torch.where(b, x, -x),
    "masked_fill": lambda b, o, x: x.masked_fill(b, 100.0),
    "masked_select": lambda b, o, x: x.masked_select(b),
    "bool_index": lambda b, o, x: x[b],
    "nonzero": lambda b, o, x: b.nonzero(),
    "sort": lambda b, o, x: torch.sort(b.flatten(), stable=True).indices,
    "mul_float": lambda b, o, x: b * x,
}


def _assert_same(npu_result: torch.Tensor, ref: torch.Tensor) -> None:
    got = npu_result.cpu()
    assert got.dtype == ref.dtype and got.shape == ref.shape
    if ref.dtype == torch.bool:  # compare the stored bytes: a result must hold 0/1
        assert torch.equal(got.view(torch.uint8), ref.view(torch.uint8)), (got.view(torch.uint8), ref)
    else:
        assert torch.equal(got, ref), (got, ref)


@pytest.mark.parametrize("name", list(_BOOL_OPS))
def test_bool_bytes_above_one_read_as_true(name):
    op = _BOOL_OPS[name]
    b, _, clean = _stray_bools()
    o, o_clean = _other_bools()
    _assert_same(op(b, o, _X.npu()), op(clean, o_clean, _X))


# Ops that move elements: the bytes they write are CPU's for these shapes
# (0/1 where CPU's kernel assigns bool values, the raw byte where it moves
# bytes). CPU is not consistent across paths (cat and flip keep the bytes
# along dim 0 and write 0/1 along dim 1), so only the value is promised in general.
_BOOL_MOVES = {
    "tril": lambda b: b.tril(),
    "triu": lambda b: b.triu(1),
    "gather": lambda b: b.gather(1, torch.tensor([[3], [2], [1]], device=b.device)),
    "take": lambda b: b.take(torch.tensor([3, 5, 7, 11], device=b.device)),
    "index_select": lambda b: b.index_select(1, torch.tensor([3, 0], device=b.device)),
    "roll": lambda b: b.roll(1, 1),
    "repeat": lambda b: b.repeat(2, 1),
    "contiguous": lambda b: b.t().contiguous(),
}


@pytest.mark.parametrize("name", list(_BOOL_MOVES))
def test_bool_bytes_of_data_movement_match_cpu(name):
    op = _BOOL_MOVES[name]
    b, b_cpu, _ = _stray_bools()
    assert torch.equal(op(b).cpu().view(torch.uint8), op(b_cpu).view(torch.uint8))


def test_cpu_reads_bool_bytes_the_same_way():
    # The reference above (0/1 bools) is what CPU gives for the raw bytes too.
    _, b_cpu, clean = _stray_bools()
    assert torch.equal(b_cpu == True, clean)  # noqa: E712
    assert b_cpu.sum().item() == clean.sum().item()


def test_bool_normalization_leaves_the_input_bytes_alone():
    b, _, clean = _stray_bools()
    assert (b == True).cpu().equal(clean)  # noqa: E712
    assert torch.equal(b.view(torch.uint8).cpu(), _BYTES)


def test_copy_of_stray_bool_into_bool_and_int():
    b, _, clean = _stray_bools()
    dst = torch.zeros(3, 4, dtype=torch.bool, device="npu")
    dst.copy_(b)
    assert torch.equal(dst.view(torch.uint8).cpu(), clean.to(torch.uint8))
    ints = torch.zeros(4, 3, dtype=torch.int64, device="npu")
    ints.copy_(b.t())
    assert torch.equal(ints.cpu(), clean.t().long())


# --------------------------------------------------------------------------
# signed zeros

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_abs_of_negative_zero_is_positive_zero(dtype):
    x = torch.tensor([-0.0, 0.0, -1.5, 2.0], dtype=dtype, device="npu")
    for y in (torch.abs(x), x.clone().abs_(), torch.abs(x[::2])):
        assert not torch.signbit(y.cpu()).any(), y


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_sign_sensitive_unary_ops_on_zeros(dtype):
    x = torch.tensor([-0.0, 0.0], dtype=dtype, device="npu")
    # Mathematical values: -(+0) = -0, sign(+-0) = +0, sqrt(-0) = -0, 1/-0 = -inf.
    assert torch.signbit(torch.neg(x).cpu()).tolist() == [False, True]
    assert torch.signbit(torch.sign(x).cpu()).tolist() == [False, False]
    assert torch.signbit(torch.sqrt(x).cpu()).tolist() == [True, False]
    assert torch.reciprocal(x).cpu().tolist() == [float("-inf"), float("inf")]
    assert torch.signbit(torch.trunc(x).cpu()).tolist() == [True, False]
    # relu is clamp_min(x, 0) on every CPU ISA: -0.0 is not below 0 and passes through.
    assert torch.signbit(torch.relu(x).cpu()).tolist() == [True, False]
    assert torch.signbit(torch.relu(x).cpu()).tolist() == torch.signbit(torch.clamp_min(x, 0).cpu()).tolist()


# --------------------------------------------------------------------------
# in-place and out= ops on conjugate and negative views

_CONJ_INPLACE = {
    "add_": lambda v: v.add_(1 + 2j),
    "mul_": lambda v: v.mul_(2j),
    "sub_": lambda v: v.sub_(torch.full_like(v, 0.5 - 1j)),
    "exp_": lambda v: v.exp_(),
    "acos_": lambda v: v.acos_(),  # the CPU fallback
    "copy_": lambda v: v.copy_(torch.full_like(v, 3 - 4j)),
    "copy_conj_source": lambda v: v.copy_(torch.full_like(v, 3 - 4j).conj()),
    "copy_converting": lambda v: v.copy_(torch.arange(5.0, dtype=torch.float64, device=v.device)),
    "fill_": lambda v: v.fill_(1 - 1j),
    "zero_": lambda v: v.zero_(),
    "conj_physical_": lambda v: v.conj_physical_(),
}


def _complex_base():
    return torch.randn(5, dtype=torch.complex64, generator=torch.Generator().manual_seed(3))


@pytest.mark.parametrize("name", list(_CONJ_INPLACE))
def test_inplace_on_conj_view_writes_the_base(name):
    op = _CONJ_INPLACE[name]
    cpu = _complex_base()
    npu = cpu.npu()
    op(cpu.conj())
    op(npu.conj())
    torch.testing.assert_close(npu.cpu(), cpu)


_OUT_OPS = {
    "exp": lambda x, out: torch.exp(x, out=out),
    "add": lambda x, out: torch.add(x, x * 2, out=out),
    "acos": lambda x, out: torch.acos(x, out=out),
    "mul": lambda x, out: torch.mul(x, 1j, out=out),
}


@pytest.mark.parametrize("name", list(_OUT_OPS))
def test_out_into_conj_view_writes_the_base(name):
    op = _OUT_OPS[name]
    cpu, x = torch.zeros(5, dtype=torch.complex64), _complex_base()
    npu = cpu.npu()
    op(x, cpu.conj())
    op(x.npu(), npu.conj())
    torch.testing.assert_close(npu.cpu(), cpu)
    assert not torch.equal(cpu, torch.zeros_like(cpu))


_NEG_INPLACE = {
    "add_": lambda v: v.add_(1.0),
    "mul_": lambda v: v.mul_(3.0),
    "exp_": lambda v: v.exp_(),
    "acos_": lambda v: v.acos_(),  # the CPU fallback
    "copy_": lambda v: v.copy_(torch.arange(5.0, device=v.device)),
    "out_exp": lambda v: torch.exp(torch.linspace(-1, 1, 5, device=v.device), out=v),
}


@pytest.mark.parametrize("name", list(_NEG_INPLACE))
def test_inplace_on_neg_view_writes_the_base(name):
    op = _NEG_INPLACE[name]
    cpu = torch.linspace(-0.9, 0.8, 5)
    npu = cpu.npu()
    op(cpu._neg_view())
    op(npu._neg_view())
    torch.testing.assert_close(npu.cpu(), cpu)


def test_conj_physical_in_place():
    # PyTorch's composite conj_physical_ used to hit "DispatchStub: missing kernel for npu".
    cpu = torch.randn(4, 3, dtype=torch.complex64)
    npu = cpu.npu()
    npu.t().conj_physical_()
    assert torch.equal(npu.cpu(), cpu.conj())
    real = torch.randn(3)
    assert torch.equal(real.npu().conj_physical_().cpu(), real)


def test_conj_of_neg_view_destination():
    cpu = _complex_base()
    npu = cpu.npu()
    cpu.conj()._neg_view().add_(2 - 1j)
    npu.conj()._neg_view().add_(2 - 1j)
    torch.testing.assert_close(npu.cpu(), cpu)


# --------------------------------------------------------------------------
# deterministic mode fills uninitialized memory


@pytest.fixture
def deterministic():
    previous = torch.are_deterministic_algorithms_enabled()
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    yield
    torch.use_deterministic_algorithms(previous)
    torch.utils.deterministic.fill_uninitialized_memory = fill


def _expected_fill(dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point or dtype.is_complex:
        return torch.tensor(float("nan"), dtype=dtype)
    if dtype == torch.bool:
        return torch.tensor(True)
    return torch.tensor(torch.iinfo(dtype).max, dtype=dtype)


def _all_filled(t: torch.Tensor, dtype: torch.dtype) -> bool:
    t = t.cpu()
    if dtype.is_floating_point or dtype.is_complex:
        return bool(torch.isnan(t).all())
    return bool((t == _expected_fill(dtype)).all())


DET_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64, torch.int64,
              torch.int32, torch.uint8, torch.int8, torch.bool]


@pytest.mark.parametrize("dtype", DET_DTYPES, ids=str)
def test_deterministic_empty_is_filled(deterministic, dtype):
    # Dirty the allocator's cache first so a reused block would show.
    torch.zeros(64, dtype=dtype, device="npu")
    assert _all_filled(torch.empty(8, 8, dtype=dtype, device="npu"), dtype)
    assert _all_filled(torch.empty_strided((3, 4), (1, 3), dtype=dtype, device="npu"), dtype)
    assert _all_filled(torch.empty_like(torch.zeros(5, dtype=dtype, device="npu")), dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex64], ids=str)
def test_deterministic_resize_fills_only_the_new_elements(deterministic, dtype):
    t = torch.ones(3, dtype=dtype, device="npu")
    t.resize_(12)
    cpu = t.cpu()
    assert torch.equal(cpu[:3], torch.ones(3, dtype=dtype))
    assert _all_filled(cpu[3:], dtype)


def test_empty_is_not_filled_outside_deterministic_mode():
    assert not torch.are_deterministic_algorithms_enabled()
    # Only checks that the flag is what switches the fill on: no NaN pass runs
    # (a kernel count would be the strict check; the native report gives it).
    before = npu_emu.native_report().copy()
    torch.empty(16, device="npu")
    torch.npu.synchronize()
    assert npu_emu.native_report() == before


# --------------------------------------------------------------------------
# storage types

STORAGE_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
                  torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128]


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=str)
def test_storage_type_is_the_npu_legacy_class(dtype):
    x = torch.zeros(3, dtype=dtype, device="npu")
    cls = x.storage_type()
    assert cls is not None
    assert cls.__name__ == torch.zeros(1, dtype=dtype).storage_type().__name__
    assert cls is getattr(torch.npu, cls.__name__)
    assert cls.dtype == dtype
    assert isinstance(x.storage(), cls)
    assert not isinstance(torch.zeros(3, dtype=dtype).storage(), cls)


def test_storages_of_npu_tensors():
    x = torch.arange(6, dtype=torch.float32, device="npu")
    assert x.untyped_storage().device.type == "npu"
    assert x.untyped_storage().nbytes() == 24
    s = x.storage()
    assert s.device.type == "npu" and s.dtype == torch.float32 and s.size() == 6
    assert s.tolist() == list(range(6))
    assert isinstance(x.storage(), torch.npu.FloatStorage)
    assert not isinstance(x.storage(), torch.npu.DoubleStorage)
