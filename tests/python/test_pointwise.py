"""Unary, binary and ternary pointwise ops, clamp, range factories and casts run
natively on npu and match PyTorch's CPU results.

Every test runs with the CPU fallback forbidden (native_only), so a pass
proves the op is native. Tolerances: integer and bool results are exact;
floating results use torch.testing.assert_close's defaults for the dtype,
except the transcendental functions in float32/float64, whose Eigen/libm
implementations may differ from PyTorch's vectorised CPU kernels by a few
ulp (rtol 1e-5 in float32). Where CPU raises, the npu must raise the same
exception type (for errors found while the kernel runs, at the next
synchronizing call, which `.cpu()` is).

Special inputs (NaN, +-inf, +-0) of the transcendental functions are compared
with their mathematical value (special_values.py), not with CPU: CPU's
results there depend on the machine's ISA (its vectorised and oneDNN kernels
differ: float32 gelu(+inf) is nan on some machines).
"""

from __future__ import annotations

import math
import re

import pytest
import torch

import npu_emu
from conftest import ALL_DTYPES, make_tensor
from native_guard import native_only  # noqa: F401
from special_values import MATHEMATICAL, SPECIAL_INPUTS, is_special, mathematical

pytestmark = pytest.mark.usefixtures("native_only")

REAL_DTYPES = [d for d in ALL_DTYPES if not d.is_complex]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def tolerance(dtype: torch.dtype, transcendental: bool) -> dict:
    if transcendental and dtype == torch.float32:
        return {"rtol": 1e-5, "atol": 1e-5}
    if transcendental and dtype == torch.float64:
        return {"rtol": 1e-12, "atol": 1e-12}
    return {}


def close(npu_result: torch.Tensor, cpu_result: torch.Tensor, transcendental: bool = False) -> None:
    """Same device type, dtype and shape as CPU; values exact or within tolerance."""
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype, (npu_result.dtype, cpu_result.dtype)
    assert npu_result.shape == cpu_result.shape
    host = npu_result.cpu()
    if cpu_result.dtype.is_floating_point or cpu_result.dtype.is_complex:
        torch.testing.assert_close(host, cpu_result, equal_nan=True, **tolerance(cpu_result.dtype, transcendental))
    else:
        assert torch.equal(host, cpu_result), (host, cpu_result)


def allow_fallback_for_dtype_gaps(dtype: torch.dtype) -> None:
    """Complex math beyond the kernels' coverage runs through the counted CPU fallback."""
    if dtype.is_complex:
        npu_emu._C._set_fallback_mode("allow")


def same_as_cpu(fn, *args: torch.Tensor, transcendental: bool = False) -> None:
    """fn on npu copies of args gives CPU's result, or fails the way CPU fails."""
    try:
        expected = fn(*args)
    except Exception as e:  # noqa: BLE001  (the npu must fail the same way)
        with pytest.raises(type(e)):
            fn(*[a.npu() for a in args]).cpu()
        return
    close(fn(*[a.npu() for a in args]), expected, transcendental)


# ---- unary ---------------------------------------------------------------------

TRANSCENDENTAL = {"exp", "expm1", "log", "log1p", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid",
                  "gelu", "gelu_tanh", "silu", "erf", "reciprocal"}

UNARY = {
    "abs": torch.abs, "neg": torch.neg, "exp": torch.exp, "expm1": torch.expm1, "log": torch.log,
    "log1p": torch.log1p, "log2": torch.log2, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin,
    "cos": torch.cos, "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
    "gelu": torch.nn.functional.gelu, "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "silu": torch.nn.functional.silu, "erf": torch.erf, "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "round_decimals": lambda x: torch.round(x, decimals=2), "trunc": torch.trunc,
    "sign": torch.sign, "reciprocal": torch.reciprocal, "bitwise_not": torch.bitwise_not,
    "logical_not": torch.logical_not, "isnan": torch.isnan, "isinf": torch.isinf, "nan_to_num": torch.nan_to_num,
}


def with_specials(x: torch.Tensor) -> torch.Tensor:
    """x with NaN, +-inf, +-0 and halfway values planted (floating dtypes)."""
    if not x.dtype.is_floating_point:
        return x
    x = x.clone().flatten()
    specials = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, 1.5, -2.5], dtype=torch.float64)
    x[: len(specials)] = specials.to(x.dtype)
    return x


@pytest.mark.parametrize("op", list(UNARY), ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unary_matches_cpu(op, dtype):
    allow_fallback_for_dtype_gaps(dtype)
    x = with_specials(make_tensor((7, 9), dtype, 1))
    if op in TRANSCENDENTAL and dtype.is_floating_point:
        # CPU's values at NaN, +-inf and +-0 depend on its ISA: those inputs
        # are checked against mathematics by test_unary_special_values.
        x = x[~is_special(x)]
    same_as_cpu(UNARY[op], x, transcendental=op in TRANSCENDENTAL)


def special_value_cases():
    assert set(MATHEMATICAL) == TRANSCENDENTAL, "every transcendental op needs a row in special_values.MATHEMATICAL"
    for op in sorted(TRANSCENDENTAL):
        for value in SPECIAL_INPUTS:
            yield pytest.param(op, value, id=f"{op}({value:+})")


@pytest.mark.parametrize("op,value", list(special_value_cases()))
def test_unary_special_values(op, value):
    """At NaN, +-inf and +-0 every float dtype gives the mathematical value
    (signed zeros included), in the vectorised body and in the tail."""
    for dtype in FLOAT_DTYPES:
        x = make_tensor((67,), dtype, 22)
        x[[0, 5, 31, 66]] = value  # start, inside, middle, last element (a kernel's scalar tail)
        got = UNARY[op](x.npu()).cpu()[[0, 5, 31, 66]]
        expected = mathematical(op, x[[0, 5, 31, 66]])
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0, msg=f"{op}({value}) {dtype}")
        zero = expected == 0
        assert torch.equal(got[zero].signbit(), expected[zero].signbit()), f"sign of zero: {op}({value}) {dtype}"


@pytest.mark.parametrize("op", ["exp", "abs", "sigmoid", "floor", "logical_not", "bitwise_not"], ids=str)
def test_unary_forms(op):
    """in-place, out= (resized, cast), non-contiguous, 0-dim, 0-size, large."""
    dtype = torch.int32 if op == "bitwise_not" else torch.float32
    x = make_tensor((64, 33), dtype, 2)
    fn, fn_ = getattr(torch, op), getattr(torch.Tensor, op + "_")
    close(fn(x.npu().t()), fn(x.t()), True)
    close(fn(x.npu()[0, 0]), fn(x[0, 0]), True)
    close(fn(x.npu()[:0]), fn(x[:0]), True)
    big = make_tensor((1 << 20,), dtype, 3)
    close(fn(big.npu()), fn(big), True)
    y = x.npu()
    fn_(y.t()[::2])
    x_ = x.clone()
    fn_(x_.t()[::2])
    close(y, x_, True)
    # A float64 out=: ops built on unary_float_op / logical_not's iterator
    # compute in the input's dtype, then cast into out's; the others (abs,
    # floor, bitwise_not: unary_op) refuse another dtype, as on CPU.
    out = torch.empty(0, dtype=torch.float64, device="npu")
    try:
        fn(x, out=torch.empty(0, dtype=torch.float64))
    except RuntimeError as cpu_error:
        with pytest.raises(RuntimeError, match=re.escape(str(cpu_error))):
            fn(x.npu(), out=out)
        return
    fn(x.npu(), out=out)
    assert out.dtype == torch.float64
    close(out.to(fn(x).dtype), fn(x), True)


# sqrt and reciprocal are correctly rounded on every ISA, and their float32
# and float64 results differ on these inputs: comparing exactly shows in which
# dtype npu computed.
EXACT_FLOAT_OPS = {"sqrt": (torch.sqrt, "aclnnSqrt"), "reciprocal": (torch.reciprocal, "aclnnReciprocal")}
SMALL_INTS = torch.tensor([2, 3, 7, 10], dtype=torch.int32)


@pytest.mark.parametrize("name", EXACT_FLOAT_OPS, ids=str)
@pytest.mark.parametrize("dtype", [torch.int32, torch.float32], ids=str)
def test_wider_out_gets_the_result_dtype_value_in_one_launch(name, dtype):
    """out= of a wider dtype: computed in the result dtype (float32), then
    converted, as CPU does; by the one aclnn launch, no temporary and copy."""
    op, aclnn = EXACT_FLOAT_OPS[name]
    x = SMALL_INTS.to(dtype)
    expected = op(x, out=torch.empty(0, dtype=torch.float64))
    assert not torch.equal(expected, op(x.double()))
    x_npu, out = x.npu(), torch.empty(0, dtype=torch.float64, device="npu")
    npu_emu.debug.reset_reports()
    op(x_npu, out=out)
    assert torch.equal(out.cpu(), expected)
    assert npu_emu._C._native_counts() == {aclnn: 1}


@pytest.mark.parametrize("name", EXACT_FLOAT_OPS, ids=str)
def test_integers_promote_to_the_default_float_dtype(name):
    op, _ = EXACT_FLOAT_OPS[name]
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        expected = op(SMALL_INTS)
        assert expected.dtype == torch.float64
        got = op(SMALL_INTS.npu())
        assert got.dtype == torch.float64 and torch.equal(got.cpu(), expected)
        # Computed in float64, then rounded into a float32 out.
        out = torch.empty(0, dtype=torch.float32, device="npu")
        op(SMALL_INTS.npu(), out=out)
        assert torch.equal(out.cpu(), op(SMALL_INTS, out=torch.empty(0, dtype=torch.float32)))
    finally:
        torch.set_default_dtype(previous)


def test_abs_of_complex_into_a_real_out_is_one_launch():
    z = torch.tensor([3 + 4j, 2j, -1 + 0j], dtype=torch.complex64)  # |z| exact: 5, 2, 1
    z_npu, out = z.npu(), torch.empty(0, dtype=torch.float64, device="npu")
    npu_emu.debug.reset_reports()
    torch.abs(z_npu, out=out)
    assert torch.equal(out.cpu(), torch.tensor([5.0, 2.0, 1.0], dtype=torch.float64))
    assert npu_emu._C._native_counts() == {"aclnnAbs": 1}
    close(torch.abs(z_npu), torch.abs(z))
    # A complex self's real result is laid out like self, as CPU's empty_like makes it.
    w = make_tensor((3, 4), torch.complex64, 5).t()
    assert torch.abs(w.npu()).stride() == torch.abs(w).stride() != torch.abs(w.contiguous()).stride()
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors"):
        z_npu.abs_()


OUT_DTYPE_REFUSED = {
    "abs": torch.abs, "neg": torch.neg, "floor": torch.floor, "sign": torch.sign, "round": torch.round,
    "nan_to_num": torch.nan_to_num, "gelu": lambda x, out: torch._C._nn.gelu(x, out=out),
}


@pytest.mark.parametrize("op", OUT_DTYPE_REFUSED.values(), ids=OUT_DTYPE_REFUSED.keys())
def test_out_dtype_rules_are_cpus(op):
    """Ops whose CPU kernel keeps one dtype for self and out refuse another
    out dtype, with CPU's message, instead of casting into it."""
    x = torch.randn(4)
    with pytest.raises(RuntimeError) as cpu:
        op(x, out=torch.empty(0, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=re.escape(str(cpu.value))):
        op(x.npu(), out=torch.empty(0, dtype=torch.float64, device="npu"))


def test_round_decimals_of_integers_fails_like_cpu():
    for decimals in (0, 2):
        same_as_cpu(lambda t: torch.round(t, decimals=decimals), SMALL_INTS)


def test_unary_layout_follows_input():
    x = torch.randn(4, 6).npu().t()
    assert torch.exp(x).stride() == torch.exp(x.cpu()).stride()


NON_DENSE_VIEWS = {"transposed slice": lambda t: t.t()[::2], "permuted slice": lambda t: t.reshape(2, 3, 8).permute(2, 0, 1)[::2]}


@pytest.mark.parametrize("view", NON_DENSE_VIEWS.values(), ids=NON_DENSE_VIEWS.keys())
@pytest.mark.parametrize("op", ["exp", "abs", "neg", "sign", "relu", "logical_not", "isnan", "isinf", "nan_to_num"])
def test_unary_result_of_a_non_dense_view_is_laid_out_as_on_cpu(op, view):
    """The result's strides are what CPU's TensorIterator chooses (the input's
    dimension order), not a contiguous tensor."""
    x = make_tensor((6, 8), torch.float32, 6)
    fn = getattr(torch, op)
    expected = fn(view(x))
    got = fn(view(x.npu()))
    assert got.stride() == expected.stride()
    close(got, expected)


# ---- binary --------------------------------------------------------------------

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"), "floor_divide": torch.floor_divide,
    "remainder": torch.remainder, "fmod": torch.fmod, "pow": torch.pow, "atan2": torch.atan2,
    "maximum": torch.maximum, "minimum": torch.minimum, "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor, "left_shift": torch.bitwise_left_shift,
    "right_shift": torch.bitwise_right_shift, "logical_and": torch.logical_and, "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor, "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
    "gt": torch.gt, "ge": torch.ge, "hypot": torch.hypot, "logaddexp": torch.logaddexp,
    "logaddexp2": torch.logaddexp2,
}
BINARY_TRANSCENDENTAL = {"pow", "atan2", "div", "hypot", "logaddexp", "logaddexp2"}
# Integer division by zero raises on CPU: keep the divisors of these nonzero.
NONZERO_DIVISOR = {"div_trunc", "div_floor", "floor_divide", "remainder", "fmod"}


def operands(op: str, dtype: torch.dtype, shape_a=(6, 5), shape_b=(6, 5)):
    a, b = make_tensor(shape_a, dtype, 4), make_tensor(shape_b, dtype, 5)
    if op in NONZERO_DIVISOR and not dtype.is_floating_point and dtype != torch.bool:
        b = torch.where(b == 0, torch.ones_like(b), b)
    if op in ("left_shift", "right_shift") and dtype != torch.bool and not dtype.is_complex:
        b = b.remainder(8) if dtype != torch.uint8 else b % 8  # in-range shifts (CPU's out-of-range is UB-ish)
    if op == "pow" and not dtype.is_floating_point and not dtype.is_complex:
        b = b.abs() % 4 if dtype != torch.bool else b
    return a, b


@pytest.mark.parametrize("op", list(BINARY), ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_binary_matches_cpu(op, dtype):
    allow_fallback_for_dtype_gaps(dtype)
    a, b = operands(op, dtype)
    same_as_cpu(BINARY[op], a, b, transcendental=op in BINARY_TRANSCENDENTAL)


@pytest.mark.parametrize("op", list(BINARY), ids=str)
def test_binary_broadcast_and_scalars(op):
    a, b = operands(op, torch.float32, (4, 1, 5), (3, 1))
    fn = BINARY[op]
    same_as_cpu(fn, a, b, transcendental=True)
    # A CPU 0-dim tensor acts as a scalar on either side.
    same_as_cpu(lambda x: fn(x, torch.tensor(3.0)), a, transcendental=True)
    same_as_cpu(lambda x: fn(torch.tensor(2.0), x), b.abs() + 1, transcendental=True)


@pytest.mark.parametrize("pair", [(torch.int32, torch.float32), (torch.uint8, torch.int8), (torch.bool, torch.int64),
                                  (torch.float16, torch.float32), (torch.bfloat16, torch.float16),
                                  (torch.int64, torch.float64)], ids=str)
@pytest.mark.parametrize("op", ["sub", "div", "maximum", "eq", "lt", "pow", "remainder", "logical_and"], ids=str)
def test_binary_type_promotion(op, pair):
    a, b = make_tensor((3, 4), pair[0], 6), make_tensor((4,), pair[1], 7)
    if op in ("remainder", "pow"):
        b = b.abs() % 3 + 1
    same_as_cpu(BINARY[op], a, b, transcendental=True)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16, torch.float32], ids=str)
def test_python_scalars(dtype):
    x = make_tensor((6,), dtype, 8).abs() + 1
    for fn in (lambda t: t - 2, lambda t: 2 - t, lambda t: t / 3, lambda t: 7 / t, lambda t: t // 2,
               lambda t: t % 3, lambda t: 5 % t, lambda t: t ** 2, lambda t: 2 ** t, lambda t: t < 2.5,
               lambda t: 2.5 >= t, lambda t: t == 3, lambda t: t.pow(0.5), lambda t: torch.maximum(t, t * 0 + 2)):
        same_as_cpu(fn, x, transcendental=True)
    ints = make_tensor((6,), torch.int64, 9)
    for fn in (lambda t: t << 2, lambda t: t >> 1, lambda t: t & 3, lambda t: t | 8, lambda t: t ^ 5):
        same_as_cpu(fn, ints)


def test_binary_inplace_out_and_views():
    a, b = torch.randn(5, 8), torch.randn(8)
    x = a.npu()
    x.sub_(b.npu(), alpha=2).div_(3).pow_(2)
    close(x, ((a - 2 * b) / 3).pow(2))
    # Out= into a strided view, with a dtype cast and a resize.
    base = torch.zeros(5, 16).npu()
    torch.maximum(a.npu(), b.npu(), out=base[:, ::2])
    close(base[:, ::2], torch.maximum(a, b))
    out = torch.empty(0, dtype=torch.float64, device="npu")
    torch.atan2(a.npu(), b.npu(), out=out)
    close(out, torch.atan2(a, b).double(), True)
    cmp_out = torch.empty(5, 8, dtype=torch.float32, device="npu")
    torch.lt(a.npu(), b.npu(), out=cmp_out)
    close(cmp_out, torch.lt(a, b).float())
    # Overlapping views of one tensor as inputs.
    v = torch.arange(10.0)
    close(v.npu()[1:] - v.npu()[:-1], v[1:] - v[:-1])
    y = v.npu()
    y[1:].mul_(y[:-1].clone())
    v2 = v.clone()
    v2[1:].mul_(v2[:-1].clone())
    close(y, v2)
    # Comparison in place keeps self's dtype.
    c, c_cpu = a.npu(), a.clone()
    c.ge_(0.0)
    c_cpu.ge_(0.0)
    close(c, c_cpu)


def test_binary_errors_are_clear():
    a = torch.randn(3).npu()
    with pytest.raises(RuntimeError, match="rounding_mode"):
        torch.div(a, a, rounding_mode="up")
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        torch.arange(3, device="npu").div_(2)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        torch.ones(2, dtype=torch.bool).npu() - torch.ones(2, dtype=torch.bool).npu()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.floor_divide(torch.ones(3, dtype=torch.int64).npu(), torch.zeros(3, dtype=torch.int64).npu()).cpu()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.maximum(a, torch.randn(3))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        a.sub_(torch.randn(2, 3).npu())
    # The process keeps working.
    close(a - 1, a.cpu() - 1)


# ---- ternary and clamp ------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_where_matches_cpu(dtype):
    cond = make_tensor((4, 5), torch.bool, 10)
    a, b = make_tensor((4, 5), dtype, 11), make_tensor((5,), dtype, 12)
    same_as_cpu(torch.where, cond, a, b)
    same_as_cpu(lambda c, x: torch.where(c, x, 0), cond, a)
    same_as_cpu(lambda c, x: torch.where(c, 2.5, x), cond, a)


def test_where_errors_and_out():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        torch.where(torch.ones(2).npu(), torch.ones(2).npu(), torch.ones(2).npu())
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    # As on CPU, where's out must have the promoted dtype (no cast into a wider out).
    with pytest.raises(RuntimeError, match="Expected out type to be Float but got Double"):
        torch.where(a > 0, a, b, out=torch.empty(0, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="Expected out type to be Float but got Double"):
        torch.where((a > 0).npu(), a.npu(), b.npu(), out=torch.empty(0, device="npu", dtype=torch.float64))
    out = torch.empty(0, device="npu")
    torch.where((a > 0).npu(), a.npu(), b.npu(), out=out)
    close(out, torch.where(a > 0, a, b))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_lerp_addcmul_addcdiv(dtype):
    a, b, c = (make_tensor((4, 6), dtype, s) for s in (13, 14, 15))
    c = c.abs() + 1
    same_as_cpu(lambda x, y: torch.lerp(x, y, 0.3), a, b)
    same_as_cpu(lambda x, y, w: torch.lerp(x, y, w), a, b, (c / 10).to(dtype))
    same_as_cpu(lambda x, y, z: torch.addcmul(x, y, z, value=-1.5), a, b, c)
    same_as_cpu(lambda x, y, z: torch.addcdiv(x, y, z, value=0.5), a, b, c)
    x = a.npu()
    x.addcmul_(b.npu(), c.npu()[0], value=2).lerp_(b.npu(), 0.5)
    close(x, a.addcmul(b, c[0], value=2).lerp(b, 0.5))


def test_ternary_integer_rules():
    ints = make_tensor((3, 4), torch.int32, 16)
    same_as_cpu(lambda x: torch.addcmul(x, x, x, value=2), ints)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        torch.addcdiv(ints.npu(), ints.npu(), ints.npu())
    with pytest.raises(RuntimeError, match="expected dtype"):
        torch.lerp(torch.randn(2).npu(), torch.randn(2).double().npu(), 0.5)


@pytest.mark.parametrize("dtype", [d for d in REAL_DTYPES if d != torch.bool], ids=str)
def test_clamp_matches_cpu(dtype):
    x = make_tensor((5, 6), dtype, 17)
    lo, hi = make_tensor((6,), dtype, 18), make_tensor((5, 1), dtype, 19)
    same_as_cpu(lambda t: torch.clamp(t, -3, 4), x)
    same_as_cpu(lambda t: torch.clamp(t, min=0.5), x)
    same_as_cpu(lambda t: t.clamp(max=2), x)
    same_as_cpu(lambda t, a, b: torch.clamp(t, a, b), x, lo, hi)
    same_as_cpu(lambda t, a: torch.clamp_min(t, a), x, lo)
    same_as_cpu(lambda t, b: torch.clamp_max(t, b), x, hi)


def test_clamp_forms_and_errors():
    x = torch.randn(4, 5)
    y = x.npu()
    y.clamp_(-0.5, 0.5)
    close(y, x.clamp(-0.5, 0.5))
    nan = torch.tensor([math.nan, 1.0, -2.0])
    close(nan.npu().clamp(0, 0.5), nan.clamp(0, 0.5))
    out = torch.empty(0, device="npu")
    torch.clamp(x.npu(), min=torch.zeros(5).npu(), out=out)
    close(out, x.clamp(min=torch.zeros(5)))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        torch.clamp(x.npu())
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.arange(4, device="npu").clamp_(min=0.5)


# ---- factories and casts -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
                                   torch.float64, torch.uint8], ids=str)
def test_range_factories_match_cpu(dtype):
    for args in [(10,), (2, 11, 3), (10, -3, -2)] + ([(0, 1, 0.1), (-1.5, 2.25, 0.25)] if dtype.is_floating_point else []):
        if dtype == torch.uint8 and min(args) < 0:
            continue
        close(torch.arange(*args, dtype=dtype, device="npu"), torch.arange(*args, dtype=dtype))
    close(torch.linspace(-2, 5, 13, dtype=dtype, device="npu"), torch.linspace(-2, 5, 13, dtype=dtype))
    close(torch.eye(4, 6, dtype=dtype, device="npu"), torch.eye(4, 6, dtype=dtype))
    close(torch.full((3, 2), 7, dtype=dtype, device="npu"), torch.full((3, 2), 7, dtype=dtype))


def test_range_factories_edge_cases():
    close(torch.arange(0, device="npu"), torch.arange(0))
    close(torch.linspace(0, 1, 1, device="npu"), torch.linspace(0, 1, 1))
    close(torch.eye(0, device="npu"), torch.eye(0))
    strided_out = torch.zeros(10, device="npu")[::2]  # computed densely, then copied into the view
    torch.arange(5.0, out=strided_out)
    close(strided_out, torch.arange(5.0))
    with pytest.raises(RuntimeError, match="step must be nonzero|step"):
        torch.arange(0, 5, 0, device="npu")
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        torch.arange(0, 5, -1, device="npu")
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        torch.linspace(0, 1, -1, device="npu")
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0"):
        torch.eye(-1, device="npu")


CAST_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
               torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("src", CAST_DTYPES, ids=str)
def test_casts_match_cpu(src):
    x = with_specials(make_tensor((8, 8), src, 20))
    for dst in CAST_DTYPES:
        if src.is_floating_point and not dst.is_floating_point and dst != torch.bool:
            x = torch.nan_to_num(x, 0, 0, 0).clamp(-100, 100)  # float->int out of range is UB in C++ and on CPU
        close(x.npu().to(dst), x.to(dst))
        close(x.npu().t().to(dst), x.t().to(dst))


def test_gelu_bad_approximate_is_clear():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        torch.nn.functional.gelu(torch.randn(3).npu(), approximate="fast")


def test_dtype_gaps_go_through_the_counted_fallback():
    npu_emu._C._set_fallback_mode("allow")
    npu_emu.debug.reset_reports()
    z = torch.randn(5, dtype=torch.complex64)
    close(torch.sin(z.npu()), torch.sin(z), True)
    out = torch.empty(0, dtype=torch.complex64, device="npu")
    torch.sin(z.npu(), out=out)
    close(out, torch.sin(z), True)
    assert npu_emu.fallback_report() == {"aten::sin": 1, "aten::sin.out": 1}
    npu_emu._C._set_fallback_mode("error")
    # Decided from the table before launching: the message names the schema,
    # the aclnn op and the dtype.
    with pytest.raises(NotImplementedError, match="^sin cannot run natively on npu: aclnnSin does not support "
                                                  "dtype complex64"):
        torch.sin(z.npu())
    # Dtypes the kernels cover never reach it.
    assert torch.sin(z.real.npu()).device.type == "npu"


def test_negating_bool_is_refused_like_cpu():
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        -torch.ones(2, dtype=torch.bool).npu()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_reduced_float_rounding_is_cpus(dtype):
    """Bit-exact with CPU where its kernels round in the tensor's dtype: the
    trunc quotient rounded before truncation, floor division rounding each
    step. add/sub with alpha: CPU's vector body fuses x + alpha*y into one
    fma (as the npu does everywhere) but its scalar tail rounds alpha*y to
    the dtype first, so tail elements may differ by one ulp."""
    g = torch.Generator().manual_seed(21)
    a = (torch.randn(100_000, generator=g) * 20).to(dtype)
    b = (torch.randn(100_000, generator=g) * 3).to(dtype)
    for fn in (lambda x, y: torch.div(x, y, rounding_mode="trunc"), lambda x, y: torch.div(x, y, rounding_mode="floor"),
               torch.floor_divide):
        expected, got = fn(a, b), fn(a.npu(), b.npu()).cpu()
        assert torch.equal(got.isnan(), expected.isnan())
        assert torch.equal(got.nan_to_num(), expected.nan_to_num())
    # The bound: one rounding of alpha*y (which cancellation can make large
    # against the sum) plus one of the sum.
    eps = torch.finfo(dtype).eps
    for alpha in (0.3, -3.125):
        for op in (torch.add, torch.sub):
            expected, got = op(a, b, alpha=alpha).double(), op(a.npu(), b.npu(), alpha=alpha).cpu().double()
            bound = eps * ((alpha * b.double()).abs() + expected.abs())
            assert ((got - expected).abs() <= bound).all(), (op, alpha)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.int32, torch.int64, torch.float32], ids=str)
def test_arange_length_rules(dtype):
    """Integer aranges step from truncated bounds; their length follows PyTorch's per-dtype rule."""
    for args in [(0.0, -8.000001, -4.0), (0.1, 1.05, 1), (0.5, 10, 3), (0.9, 1.95, 1), (-3, 7, 2)]:
        if dtype == torch.uint8 and min(args) < 0:
            continue
        close(torch.arange(*args, dtype=dtype, device="npu"), torch.arange(*args, dtype=dtype))


@pytest.mark.parametrize("make", [
    lambda out: torch.linspace(0, 3, 4, out=out),
    lambda out: torch.logspace(0, 3, 4, out=out),
    lambda out: torch.arange(0, 4, out=out),
], ids=["linspace", "logspace", "arange"])
def test_range_out_keeps_a_view_whose_element_count_matches(make):
    """CPU writes a range into an out= view of the right element count in its
    own shape and strides (a 2x2 column slice of a 2x3 tensor), not into a
    resized one: here the values landed in the wrong elements, silently."""
    base = {d: torch.zeros(2, 3, device=d) for d in ("cpu", "npu")}
    results = {d: make(base[d].narrow(1, 1, 2)) for d in base}
    assert results["npu"].shape == results["cpu"].shape == (2, 2)
    assert torch.equal(base["npu"].cpu(), base["cpu"])
    assert torch.equal(results["npu"].cpu(), results["cpu"])
    # A contiguous out of another shape but the same count also keeps its shape.
    out = torch.empty(2, 2, device="npu")
    assert make(out).shape == (2, 2) and torch.equal(out.cpu(), make(torch.empty(2, 2)))


def test_complex_norm_of_a_0dim_tensor():
    z = torch.randn((), dtype=torch.complex64)
    for kw in ({"dim": 0, "keepdim": True}, {"dim": -1}, {}):
        close(torch.linalg.vector_norm(z.npu(), 2, **kw), torch.linalg.vector_norm(z, 2, **kw))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64], ids=str)
def test_nan_to_num_with_infinite_bounds_keeps_infinities(dtype):
    """posinf=inf / neginf=-inf (linalg.cond's nan_to_num_(inf, inf, -inf))
    keep the infinities as on CPU instead of turning into the dtype's default
    extreme; so does a bound beyond float's range for float32."""
    x = torch.tensor([1.0, math.inf, math.nan, -math.inf], dtype=dtype)
    for kwargs in ({"nan": math.inf, "posinf": math.inf, "neginf": -math.inf},
                   {"posinf": math.inf}, {"neginf": -math.inf}, {"posinf": -math.inf, "neginf": math.inf}):
        expected = torch.nan_to_num(x, **kwargs)
        torch.testing.assert_close(torch.nan_to_num(x.npu(), **kwargs).cpu(), expected, equal_nan=True)
        y = x.npu()
        y.nan_to_num_(**kwargs)
        torch.testing.assert_close(y.cpu(), expected, equal_nan=True)
    if dtype == torch.float32:
        torch.testing.assert_close(torch.nan_to_num(x.npu(), posinf=1e300, neginf=-1e300).cpu(),
                                   torch.nan_to_num(x, posinf=1e300, neginf=-1e300))


def test_linalg_cond_of_a_singular_batch_element_is_inf(fallback_mode):
    fallback_mode("allow")  # linalg_inv_ex runs on CPU
    a = torch.eye(3).repeat(3, 1, 1)
    a[1, -1, -1] = 0
    for p in (1, -1, math.inf, -math.inf, "fro", "nuc"):
        torch.testing.assert_close(torch.linalg.cond(a.npu(), p).cpu(), torch.linalg.cond(a, p))


@pytest.mark.parametrize("fn", [lambda i, o: torch.pow(42, i, out=o), lambda i, o: torch.float_power(2, i, out=o)],
                         ids=["pow_scalar_base", "float_power_scalar_base"])
def test_scalar_base_pow_refuses_a_partly_overlapping_out_as_cpu(fn):
    x = torch.randn(6, dtype=torch.float64)
    with pytest.raises(RuntimeError) as cpu:
        fn(x[:3], x[1:4])
    d = x.npu()
    with pytest.raises(RuntimeError, match=re.escape(str(cpu.value))):
        fn(d[:3], d[1:4])
    fn(d[:3], d[:3])  # the same elements are fine
    fn(x[:3], x[:3])
    torch.testing.assert_close(d.cpu(), x)
    ones = torch.randn(6).npu()
    torch.pow(1, ones[:3], out=ones[1:4])  # base 1 fills without a check, as on CPU


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_to_bool_looks_at_both_parts(dtype, fallback_mode):
    """A complex number is true when either part is nonzero, as on CPU; the
    conversion looked at the real part only (logical ops, bool(), any)."""
    fallback_mode("allow")  # complex128 logical_not runs on the CPU
    x = torch.tensor([1j, 1, 0, 1e-40j, complex(0, -0.0)], dtype=dtype)
    d = x.npu()
    for fn in (lambda t: t.bool(), torch.logical_not, lambda t: torch.logical_and(t, t),
               lambda t: torch.logical_or(t, t.flip(0)), lambda t: torch.logical_xor(t, t.flip(0)),
               lambda t: t[:1].any(), lambda t: t[:2].all(), torch.count_nonzero):
        torch.testing.assert_close(fn(d).cpu(), fn(x))
    assert bool(d[0]) is True
