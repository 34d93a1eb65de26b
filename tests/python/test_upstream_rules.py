"""Rules PyTorch's own test files check, which npu must follow as CPU does:
out= dtypes and devices, empty indices, internal and partial overlap of
out= tensors, the memory format of cat's result, and gradients of ops whose
CPU kernels choose their algorithm from the input's strides (det and
friends, run through the CPU fallback).

Each case runs the same call on CPU and on npu: either both raise the same
exception type (same message where npu words it as CPU does), or both give
the same values and, for layout rules, the same strides.
"""

from __future__ import annotations

import warnings
from typing import Callable

import pytest
import torch

from conftest import make_tensor


def outcome(fn: Callable[[str], object], device: str) -> object:
    """fn(device), or the exception it raised (synchronized on npu)."""
    try:
        result = fn(device)
        if device == "npu":
            torch.npu.synchronize()
        return result
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return e


def assert_same_refusal(fn: Callable[[str], object], same_message: bool = True) -> None:
    cpu, npu = outcome(fn, "cpu"), outcome(fn, "npu")
    assert isinstance(cpu, Exception), "the case must be one CPU refuses"
    assert isinstance(npu, Exception), f"npu accepted what CPU refuses ({cpu!r}): {npu!r}"
    assert type(npu) is type(cpu), (cpu, npu)
    if same_message:
        assert str(npu).splitlines()[0] == str(cpu).splitlines()[0]


# ---- out= of another dtype: refused, not cast into -----------------------------------

def _src(d: str) -> torch.Tensor:
    return make_tensor((3, 4), torch.float32).to(d)


def _idx(d: str) -> torch.Tensor:
    return torch.tensor([[0, 2, 1, 3], [1, 0, 3, 2], [3, 3, 0, 1]], device=d)


OUT_DTYPE_CASES = {
    "gather": lambda d, out: torch.gather(_src(d), 1, _idx(d), out=out),
    "scatter_src": lambda d, out: torch.scatter(_src(d), 1, _idx(d), _src(d), out=out),
    "scatter_value": lambda d, out: torch.scatter(_src(d), 1, _idx(d), 2.0, out=out),
    "scatter_add": lambda d, out: torch.scatter_add(_src(d), 1, _idx(d), _src(d), out=out),
    "scatter_reduce": lambda d, out: torch.scatter_reduce(_src(d), 1, _idx(d), _src(d), "sum", out=out),
    "index_select": lambda d, out: torch.index_select(_src(d), 0, _idx(d)[0, :2], out=out),
    "take": lambda d, out: torch.take(_src(d), _idx(d)[0], out=out),
    "masked_select": lambda d, out: torch.masked_select(_src(d), _src(d) > 0, out=out),
    "tril": lambda d, out: torch.tril(_src(d), out=out),
    "triu": lambda d, out: torch.triu(_src(d), 1, out=out),
}


@pytest.mark.parametrize("out_dtype", [torch.int64, torch.float64])
@pytest.mark.parametrize("op", sorted(OUT_DTYPE_CASES))
def test_out_of_another_dtype_is_refused(op, out_dtype):
    case = OUT_DTYPE_CASES[op]
    assert_same_refusal(lambda d: case(d, torch.empty(0, dtype=out_dtype, device=d)))


@pytest.mark.parametrize("op", sorted(OUT_DTYPE_CASES))
def test_out_of_the_same_dtype_still_works(op):
    case = OUT_DTYPE_CASES[op]
    cpu = case("cpu", torch.empty(0))
    npu_out = torch.empty(0, device="npu")
    npu = case("npu", npu_out)
    assert npu is npu_out
    assert torch.equal(npu.cpu(), cpu)


# ---- out= on the wrong device ---------------------------------------------------------

WRONG_DEVICE_CASES = {
    # ops without an npu kernel run through the CPU fallback, which must not
    # fill a CPU out= for npu inputs (nor a CPU self of an in-place op)
    "addr": lambda: torch.addr(torch.ones(2, 3, device="npu"), torch.ones(2, device="npu"),
                               torch.ones(3, device="npu"), out=torch.empty(2, 3)),
    "addmv": lambda: torch.addmv(torch.ones(2, device="npu"), torch.ones(2, 3, device="npu"),
                                 torch.ones(3, device="npu"), out=torch.empty(2)),
    "logaddexp": lambda: torch.logaddexp(torch.ones(3, device="npu"), torch.ones(3, device="npu"),
                                         out=torch.empty(3)),
    "cross": lambda: torch.linalg.cross(torch.ones(3, device="npu"), torch.ones(3, device="npu"),
                                        out=torch.empty(3)),
    # native ops
    "gather": lambda: torch.gather(_src("npu"), 1, _idx("npu"), out=torch.empty(3, 4)),
    "cat": lambda: torch.cat([torch.ones(2, device="npu")], out=torch.empty(2)),
    "sum": lambda: torch.sum(torch.ones(2, 3, device="npu"), 0, out=torch.empty(3)),
}


@pytest.mark.parametrize("op", sorted(WRONG_DEVICE_CASES))
def test_cpu_out_for_npu_inputs_is_refused(op):
    with pytest.raises(RuntimeError, match="same device"):
        WRONG_DEVICE_CASES[op]()


# ---- empty indices: no index value is read, any index dtype is accepted --------------

EMPTY_INDEX_CASES = {
    "gather": lambda s, i: torch.gather(s, 1, i),
    "scatter_src": lambda s, i: torch.scatter(s, 1, i, s),
    "scatter_value": lambda s, i: torch.scatter(s, 1, i, 1.5),
    "scatter_add": lambda s, i: torch.scatter_add(s, 1, i, s),
    "scatter_reduce": lambda s, i: torch.scatter_reduce(s, 1, i, s, "amax"),
    "scatter_inplace": lambda s, i: s.clone().scatter_(1, i, s),
}


@pytest.mark.parametrize("index_dtype", [torch.uint8, torch.int16, torch.bool, torch.float32, torch.int64])
@pytest.mark.parametrize("op", sorted(EMPTY_INDEX_CASES))
def test_empty_index_of_any_dtype_matches_cpu(op, index_dtype):
    src = make_tensor((3, 4), torch.float32)
    index = torch.empty(0, 4, dtype=index_dtype)
    cpu = EMPTY_INDEX_CASES[op](src, index)
    npu = EMPTY_INDEX_CASES[op](src.npu(), index.npu())
    assert npu.device.type == "npu"
    assert npu.shape == cpu.shape
    assert torch.equal(npu.cpu(), cpu)


def test_nonempty_index_of_another_dtype_is_still_refused():
    assert_same_refusal(lambda d: torch.gather(_src(d), 1, _idx(d).to(torch.uint8)), same_message=False)


# ---- out= whose elements overlap, or that overlaps an input ----------------------------

def _expanded(d: str, n: int) -> torch.Tensor:
    return torch.zeros(1, device=d).expand(n)


OVERLAP_CASES = {
    "cat_expanded_out": lambda d: torch.cat([torch.ones(3, device=d), torch.ones(3, device=d)], out=_expanded(d, 6)),
    "cat_out_is_input": lambda d: (lambda a: torch.cat([a[:2], a[2:4]], out=a))(torch.ones(4, device=d)),
    "cat_out_overlaps_input": lambda d: (lambda a: torch.cat([a[:3], a[3:6]], out=a[2:8]))(torch.ones(8, device=d)),
    "gather_expanded_out": lambda d: torch.gather(torch.ones(4, device=d), 0, torch.zeros(4, dtype=torch.long,
                                                                                          device=d),
                                                  out=_expanded(d, 4)),
    "gather_out_is_self": lambda d: (lambda a: torch.gather(a, 0, torch.zeros(4, dtype=torch.long, device=d),
                                                            out=a))(torch.ones(4, device=d)),
    "index_select_expanded_out": lambda d: torch.index_select(torch.ones(4, device=d), 0,
                                                              torch.zeros(4, dtype=torch.long, device=d),
                                                              out=_expanded(d, 4)),
    "take_out_is_self": lambda d: (lambda a: torch.take(a, torch.zeros(4, dtype=torch.long, device=d),
                                                        out=a))(torch.ones(4, device=d)),
    "scatter_expanded_out": lambda d: torch.scatter(torch.ones(4, device=d), 0,
                                                    torch.zeros(1, dtype=torch.long, device=d),
                                                    torch.ones(1, device=d), out=_expanded(d, 4)),
    "sort_expanded_values": lambda d: torch.sort(torch.ones(4, device=d),
                                                 out=(_expanded(d, 4), torch.empty(0, dtype=torch.long, device=d))),
    "topk_expanded_indices": lambda d: torch.topk(torch.ones(4, device=d), 2,
                                                  out=(torch.empty(0, device=d),
                                                       torch.zeros(1, dtype=torch.long, device=d).expand(2))),
    "max_dim_expanded_values": lambda d: torch.max(torch.ones(4, 3, device=d), 0,
                                                   out=(_expanded(d, 3), torch.empty(0, dtype=torch.long, device=d))),
    "cumsum_expanded_out": lambda d: torch.cumsum(torch.ones(4, device=d), 0, out=_expanded(d, 4)),
    "cumprod_expanded_out": lambda d: torch.cumprod(torch.ones(4, device=d), 0, out=_expanded(d, 4)),
    "masked_select_expanded_out": lambda d: torch.masked_select(torch.ones(4, device=d),
                                                                torch.ones(4, dtype=torch.bool, device=d),
                                                                out=_expanded(d, 4)),
    "nonzero_expanded_out": lambda d: torch.nonzero(torch.ones(4, device=d),
                                                    out=torch.zeros(1, 1, dtype=torch.long, device=d).expand(4, 1)),
    "arange_expanded_out": lambda d: torch.arange(4, out=_expanded(d, 4)),
    "linspace_expanded_out": lambda d: torch.linspace(0, 1, 4, out=_expanded(d, 4)),
    "scatter_inplace_expanded": lambda d: _expanded(d, 4).scatter_(0, torch.tensor([0], device=d), 1.0),
    "scatter_add_inplace_expanded": lambda d: _expanded(d, 4).scatter_add_(0, torch.tensor([0], device=d),
                                                                           torch.ones(1, device=d)),
    "uniform_expanded": lambda d: _expanded(d, 4).uniform_(),
    "normal_expanded": lambda d: _expanded(d, 4).normal_(),
    "random_expanded": lambda d: _expanded(d, 4).random_(0, 3),
    "bernoulli_expanded": lambda d: _expanded(d, 4).bernoulli_(0.5),
    "exponential_expanded": lambda d: _expanded(d, 4).exponential_(),
    "stack_expanded_out": lambda d: torch.stack([torch.ones(3, device=d)] * 2, out=torch.zeros(1, 3, device=d)
                                                .expand(2, 3)),
}


@pytest.mark.parametrize("case", sorted(OVERLAP_CASES))
def test_overlapping_out_is_refused(case):
    assert_same_refusal(OVERLAP_CASES[case])


# ---- cat keeps the inputs' memory format ------------------------------------------------

def _cl(shape, seed=0) -> torch.Tensor:
    return make_tensor(shape, torch.float32, seed).contiguous(memory_format=torch.channels_last)


CAT_LAYOUTS = {
    "channels_last_dim1": lambda: ([_cl((2, 3, 4, 5)), _cl((2, 2, 4, 5), 1)], 1),
    "channels_last_dim0": lambda: ([_cl((2, 3, 4, 5)), _cl((1, 3, 4, 5), 1)], 0),
    "channels_last_dim3": lambda: ([_cl((2, 3, 4, 5)), _cl((2, 3, 4, 2), 1)], 3),
    "channels_last_3d": lambda: ([make_tensor((2, 3, 2, 4, 5), torch.float32)
                                  .contiguous(memory_format=torch.channels_last_3d)] * 2, 1),
    "mixed_with_contiguous": lambda: ([_cl((2, 3, 4, 5)), make_tensor((2, 3, 4, 5), torch.float32, 1)], 1),
    "with_legacy_empty": lambda: ([_cl((2, 3, 4, 5)), torch.empty(0)], 1),
    "transposed_2d": lambda: ([make_tensor((4, 3), torch.float32).t()] * 2, 0),
}


@pytest.mark.parametrize("case", sorted(CAT_LAYOUTS))
def test_cat_result_strides_match_cpu(case):
    tensors, dim = CAT_LAYOUTS[case]()
    cpu = torch.cat(tensors, dim)
    npu = torch.cat([t.npu() for t in tensors], dim)
    assert npu.stride() == cpu.stride()
    assert torch.equal(npu.cpu(), cpu)


@pytest.mark.parametrize("out_shape", [(0,), (2, 3, 4, 5), (4, 3, 4, 5)])
def test_cat_out_strides_match_cpu(out_shape):
    """A resized out= takes the inputs' layout; one of the right shape keeps its own."""
    tensors = [_cl((2, 3, 4, 5)), _cl((2, 3, 4, 5), 1)]
    cpu_out, npu_out = torch.empty(out_shape), torch.empty(out_shape, device="npu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # resizing a non-empty out= is deprecated, on both devices
        torch.cat(tensors, 0, out=cpu_out)
        torch.cat([t.npu() for t in tensors], 0, out=npu_out)
    assert npu_out.stride() == cpu_out.stride()
    assert torch.equal(npu_out.cpu(), cpu_out)


STACK_LAYOUTS = {
    "channels_last": lambda: [_cl((2, 3, 4, 5)), _cl((2, 3, 4, 5), 1)],
    "mixed": lambda: [_cl((2, 3, 4, 5)), make_tensor((2, 3, 4, 5), torch.float32)],
    "transposed": lambda: [make_tensor((4, 3), torch.float32).t()] * 3,
    "channels_last_3d": lambda: [make_tensor((2, 3, 2, 4, 5), torch.float32)
                                 .contiguous(memory_format=torch.channels_last_3d)] * 2,
}


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("case", sorted(STACK_LAYOUTS))
def test_stack_result_strides_match_cpu(case, dim):
    tensors = STACK_LAYOUTS[case]()
    cpu = torch.stack(tensors, dim)
    npu = torch.stack([t.npu() for t in tensors], dim)
    assert npu.stride() == cpu.stride()
    assert torch.equal(npu.cpu(), cpu)


# ---- flip, roll and sort allocate their results as CPU does -----------------------------------

LAYOUT_INPUTS = {
    "channels_last": lambda: _cl((2, 3, 4, 5)),
    "channels_last_step": lambda: _cl((2, 6, 4, 5))[:, ::2],
    "transposed": lambda: make_tensor((4, 6), torch.float32).t(),
    "permuted": lambda: make_tensor((2, 3, 4), torch.float32).permute(2, 0, 1),
    "step": lambda: make_tensor((4, 6), torch.float32)[:, ::2],
}

LAYOUT_OPS = {
    "sort_values": lambda t: t.sort(0)[0],
    "sort_indices": lambda t: t.sort(-1, descending=True)[1],
    "argsort": lambda t: t.argsort(0),
    "flip_first": lambda t: t.flip(0),
    "flip_last": lambda t: t.flip(-1),
    "roll": lambda t: t.roll(1, 0),
    "roll_flat": lambda t: t.roll(2),
}


@pytest.mark.parametrize("inp", sorted(LAYOUT_INPUTS))
@pytest.mark.parametrize("op", sorted(LAYOUT_OPS))
def test_flip_roll_sort_result_strides_match_cpu(op, inp):
    x = LAYOUT_INPUTS[inp]()
    cpu = LAYOUT_OPS[op](x)
    npu = LAYOUT_OPS[op](x.npu())
    assert npu.stride() == cpu.stride()
    assert torch.equal(npu.cpu(), cpu)


# ---- *_like factories propagate strides as on CPU ---------------------------------------

LIKE_FACTORIES = {
    "empty_like": torch.empty_like,
    "zeros_like": torch.zeros_like,
    "ones_like": torch.ones_like,
    "full_like": lambda t, **kw: torch.full_like(t, 2, **kw),
    "rand_like": torch.rand_like,
    "randn_like": torch.randn_like,
}

LIKE_INPUTS = {
    "transposed": lambda d: torch.ones(4, 6, device=d).t(),
    "step_slice": lambda d: torch.ones(4, 6, device=d)[::2],
    "channels_last": lambda d: torch.ones(2, 3, 4, 5, device=d).contiguous(memory_format=torch.channels_last),
    "channels_last_step": lambda d: torch.ones(2, 6, 4, 5, device=d)
    .contiguous(memory_format=torch.channels_last)[:, ::2],
    "expanded_permuted": lambda d: torch.ones(3, 4, device=d).expand(2, 3, 4).transpose(0, 2),
    "permuted_step": lambda d: torch.ones(2, 3, 8, device=d).permute(2, 0, 1)[::2],
    "size_one_dims": lambda d: torch.ones(1, 3, 1, 1, device=d).contiguous(memory_format=torch.channels_last),
}


@pytest.mark.parametrize("memory_format", [None, torch.preserve_format, torch.contiguous_format,
                                           torch.channels_last])
@pytest.mark.parametrize("inp", sorted(LIKE_INPUTS))
@pytest.mark.parametrize("factory", sorted(LIKE_FACTORIES))
def test_like_factories_strides_match_cpu(factory, inp, memory_format):
    kw = {} if memory_format is None else {"memory_format": memory_format}
    cpu, npu = (outcome(lambda d: LIKE_FACTORIES[factory](LIKE_INPUTS[inp](d), **kw), d) for d in ("cpu", "npu"))
    if isinstance(cpu, Exception):
        assert type(npu) is type(cpu)
        return
    assert npu.device.type == "npu"
    assert npu.stride() == cpu.stride()


# ---- det, slogdet, logdet: gradients on non-contiguous inputs ----------------------------

def _spd_batch(seed: int) -> torch.Tensor:
    """Well-conditioned matrices with positive determinants (logdet is real)."""
    a = make_tensor((4, 3, 3), torch.float64, seed) / 10
    return a @ a.mT + 3 * torch.eye(3, dtype=torch.float64)


LAYOUTS = {
    "batch_step": lambda t: t[::2],
    "transposed": lambda t: t.mT,
    "transposed_step": lambda t: t.mT[1::2],
    "column_slice": lambda t: torch.cat([t, t], -1)[..., ::2],
    "single_transposed": lambda t: t[0].t(),
    "contiguous": lambda t: t,
}

DET_FUNCTIONS = {
    "det": torch.linalg.det,
    "slogdet": lambda a: torch.linalg.slogdet(a)[1],
    "logdet": torch.logdet,
    "solve": lambda a: torch.linalg.solve(a, torch.ones(a.shape[:-1], dtype=a.dtype, device=a.device)),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fn", sorted(DET_FUNCTIONS))
def test_det_family_gradients_on_strided_inputs_match_cpu(fn, layout):
    base = _spd_batch(3)
    # a non-symmetric part makes a transposed gradient a wrong one
    base = base + torch.triu(torch.ones(3, 3, dtype=torch.float64), 1)
    grads = {}
    for d in ("cpu", "npu"):
        leaf = base.detach().to(d).requires_grad_()
        DET_FUNCTIONS[fn](LAYOUTS[layout](leaf)).sum().backward()
        grads[d] = leaf.grad.cpu()
    torch.testing.assert_close(grads["npu"], grads["cpu"])


# ---- uniform_ and normal_ on complex tensors: each part drawn, as on CPU -----------------

def test_complex_uniform_fills_both_parts_in_range():
    z = torch.empty(4096, dtype=torch.complex64, device="npu").uniform_(2, 3)
    parts = torch.view_as_real(z).cpu()
    assert bool(((parts >= 2) & (parts < 3)).all())
    assert parts[:, 0].std() > 0.2 and parts[:, 1].std() > 0.2  # both parts vary (uniform std is 0.29)


def test_complex_normal_splits_the_variance_between_the_parts():
    torch.npu.manual_seed(0)
    z = torch.empty(1 << 16, dtype=torch.complex64, device="npu").normal_(0, 2)
    parts = torch.view_as_real(z).cpu().double()
    # each part has std 2 / sqrt(2); with 65536 samples the estimate is within 2%
    torch.testing.assert_close(parts.std(0), torch.full((2,), 2 / 2 ** 0.5, dtype=torch.float64), rtol=0.02, atol=0)


# ---- out= filled by the CPU fallback: a resized out takes CPU's layout --------------------

FALLBACK_OUT_CASES = {
    "lu_factor": lambda a, d: torch.linalg.lu_factor(a, out=(torch.empty(0, dtype=a.dtype, device=d),
                                                             torch.empty(0, dtype=torch.int32, device=d))),
    "qr": lambda a, d: torch.linalg.qr(a, out=(torch.empty(0, dtype=a.dtype, device=d),
                                               torch.empty(0, dtype=a.dtype, device=d))),
    "inv": lambda a, d: (torch.linalg.inv(a, out=torch.empty(0, dtype=a.dtype, device=d)),),
    "eigh": lambda a, d: torch.linalg.eigh(a @ a.mT, out=(torch.empty(0, dtype=a.dtype, device=d),
                                                          torch.empty(0, dtype=a.dtype, device=d))),
}


@pytest.mark.parametrize("layout", ["contiguous", "batch_step"])
@pytest.mark.parametrize("op", sorted(FALLBACK_OUT_CASES))
def test_fallback_out_takes_the_cpu_kernels_layout(op, layout):
    a = _spd_batch(5) + torch.triu(torch.ones(3, 3, dtype=torch.float64), 1)
    if layout == "batch_step":
        a = a[::2]
    cpu = FALLBACK_OUT_CASES[op](a, "cpu")
    npu = FALLBACK_OUT_CASES[op](a.npu(), "npu")
    for c, n in zip(cpu, npu):
        assert n.device.type == "npu"
        assert n.stride() == c.stride()
        torch.testing.assert_close(n.cpu(), c)


# ---- out= ops whose only non-CPU kernel checks for CPU/CUDA/XPU devices ----------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8, torch.bfloat16])
def test_mode_out_matches_cpu(dtype):
    # PyTorch's mode.values kernel refuses every device but CPU, CUDA and XPU.
    src = torch.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0], [5, 6, 7, 7, 7]], dtype=dtype)
    cpu_values, cpu_indices = torch.empty(0, dtype=dtype), torch.empty(0, dtype=torch.long)
    torch.mode(src, 1, out=(cpu_values, cpu_indices))
    values = torch.empty(0, dtype=dtype, device="npu")
    indices = torch.empty(0, dtype=torch.long, device="npu")
    result = torch.mode(src.npu(), 1, out=(values, indices))
    assert result.values is values and result.indices is indices
    assert torch.equal(values.cpu(), cpu_values)
    assert torch.equal(indices.cpu(), cpu_indices)


def test_mode_out_of_another_dtype_is_refused_as_on_cpu():
    src = torch.tensor([[1.0, 2.0, 2.0]])
    with pytest.raises(RuntimeError, match="expected scalar type .* but got .* for values"):
        torch.mode(src, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    with pytest.raises(RuntimeError, match="expected scalar type .* but got .* for values"):
        torch.mode(src.npu(), 1, out=(torch.empty(0, dtype=torch.float64, device="npu"),
                                      torch.empty(0, dtype=torch.long, device="npu")))


def test_mode_out_on_another_device_is_refused_as_on_cpu():
    src = torch.tensor([[1.0, 2.0, 2.0]], device="npu")
    with pytest.raises(RuntimeError, match="expected device .* but got .* for values"):
        torch.mode(src, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long, device="npu")))
