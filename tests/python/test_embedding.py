"""F.embedding on npu, forward and backward, runs natively (the CPU fallback
is forbidden in each test) and matches CPU: padding_idx, scale_grad_by_freq,
max_norm (embedding_renorm_, in place on the weight), repeated indices,
int32 and int64 indices, any leading index shape; gradcheck in float64.

embedding_dense_backward sums each weight row's gradients in position
order, as CPU does, so float32/float64 results are equal to CPU's up to the
scale multiplication's rounding; float16/bfloat16 round each addition to
the dtype as CPU does.
"""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
TOL = {torch.float32: (1e-6, 1e-6), torch.float64: (1e-12, 1e-12), torch.float16: (1e-3, 1e-3),
       torch.bfloat16: (8e-3, 8e-3)}


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def close(npu_result: torch.Tensor, cpu_result: torch.Tensor) -> None:
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    rtol, atol = TOL[cpu_result.dtype]
    torch.testing.assert_close(npu_result.cpu(), cpu_result, rtol=rtol, atol=atol)


def lookup(device, weight, indices, grad, **kwargs):
    w = weight.to(device).requires_grad_(True)
    out = F.embedding(indices.to(device), w, **kwargs)
    out.backward(grad.to(device))
    return out.detach(), w.grad


CASES = [
    # (num_weights, dim, index shape, kwargs)
    (10, 4, (3, 5), {}),
    (10, 4, (3, 5), {"padding_idx": 2}),
    (10, 4, (3, 5), {"padding_idx": -1}),
    (10, 4, (3, 5), {"scale_grad_by_freq": True}),
    (10, 4, (3, 5), {"scale_grad_by_freq": True, "padding_idx": 0}),
    (7, 3, (), {}),
    (7, 3, (0,), {}),
    (50, 16, (2, 3, 40), {}),
]


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("rows,dim,index_shape,kwargs", CASES)
def test_embedding_forward_backward(rows, dim, index_shape, kwargs, dtype, index_dtype):
    weight = torch.randn(rows, dim, generator=gen(0)).to(dtype)
    # Few distinct rows: most rows repeat, some never appear.
    indices = torch.randint(0, min(rows, 6), index_shape, generator=gen(1)).to(index_dtype)
    grad = torch.randn(*index_shape, dim, generator=gen(2)).to(dtype)
    out, wgrad = lookup("npu", weight, indices, grad, **kwargs)
    ref_out, ref_wgrad = lookup("cpu", weight, indices, grad, **kwargs)
    close(out, ref_out)
    close(wgrad, ref_wgrad)


def test_embedding_dense_backward_large_table_many_repeats():
    """A transformer-sized step: many positions naming few rows, rows split across threads."""
    rows, dim = 3000, 64
    indices = torch.randint(0, 40, (16, 256), generator=gen(3))
    indices[0, :10] = torch.arange(rows - 10, rows)
    grad = torch.randn(16, 256, dim, generator=gen(4))
    got = torch.ops.aten.embedding_dense_backward(grad.to("npu"), indices.to("npu"), rows, -1, False)
    want = torch.ops.aten.embedding_dense_backward(grad, indices, rows, -1, False)
    close(got, want)


def test_embedding_dense_backward_non_contiguous_grad():
    grad = torch.randn(8, 5, generator=gen(5)).t()  # [5, 8], strided
    indices = torch.tensor([1, 3, 1, 0, 3])
    got = torch.ops.aten.embedding_dense_backward(grad.to("npu"), indices.to("npu"), 4, 3, True)
    close(got, torch.ops.aten.embedding_dense_backward(grad, indices, 4, 3, True))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_embedding_max_norm_renormalizes_weight_in_place(norm_type, dtype):
    weight = (torch.randn(10, 4, generator=gen(6)) * 3).to(dtype)
    indices = torch.tensor([[1, 2, 4], [4, 3, 9], [1, 1, 1]])
    w_npu = weight.to("npu")
    w_cpu = weight.clone()
    out = F.embedding(indices.to("npu"), w_npu, max_norm=1.5, norm_type=norm_type)
    ref = F.embedding(indices, w_cpu, max_norm=1.5, norm_type=norm_type)
    close(out, ref)
    close(w_npu, w_cpu)  # the looked-up rows were scaled in place, the others kept
    touched = w_cpu.float().norm(p=norm_type, dim=1)[indices.unique()]
    assert (touched <= 1.5 * (1 + 1e-2)).all()


def test_embedding_gradcheck():
    """The plain lookup (padding_idx and scale_grad_by_freq change the gradient on purpose: compared with CPU above)."""
    weight = torch.randn(6, 3, dtype=torch.float64, generator=gen(7)).to("npu").requires_grad_(True)
    indices = torch.tensor([[0, 2, 2], [5, 0, 1]], device="npu")
    assert torch.autograd.gradcheck(lambda w: F.embedding(indices, w), (weight,))


def test_embedding_bad_indices():
    weight = torch.randn(5, 3, device="npu")
    grad = torch.randn(2, 3, device="npu")
    with pytest.raises(RuntimeError, match="out of range"):
        torch.ops.aten.embedding_dense_backward(grad, torch.tensor([0, 5], device="npu"), 5, -1, False).cpu()
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        torch.ops.aten.embedding_dense_backward(grad, torch.tensor([0.0, 1.0], device="npu"), 5, -1, False)
    with pytest.raises(RuntimeError, match="2-dim"):
        torch.embedding_renorm_(weight[0], torch.tensor([0], device="npu"), 1.0, 2.0)


INDEX_DTYPE_ERRORS = {
    "embedding": lambda d: F.embedding(torch.tensor([[0.0, 1.0]], device=d), torch.ones(4, 3, device=d)),
    "embedding_module": lambda d: torch.nn.Embedding(4, 3).to(d)(torch.tensor([0.0, 1.0], device=d)),
    "embedding_renorm_": lambda d: torch.embedding_renorm_(torch.ones(4, 3, device=d),
                                                           torch.tensor([0.0], device=d), 1.0, 2.0),
    "embedding_dense_backward": lambda d: torch.ops.aten.embedding_dense_backward(
        torch.ones(2, 3, device=d), torch.tensor([0.0, 1.0], device=d), 4, -1, False),
    "embedding_bag_indices": lambda d: F.embedding_bag(torch.tensor([0.0, 1.0], device=d), torch.ones(4, 3, device=d),
                                                       torch.tensor([0], device=d)),
}


@pytest.mark.parametrize("case", list(INDEX_DTYPE_ERRORS))
def test_index_dtype_errors_are_cpus(case):
    """Floating-point indices are refused at the call with CPU's message (CPU's own check, naming the argument
    and the allowed dtypes), by the lookup, its backward, renorm and the bag."""
    fn = INDEX_DTYPE_ERRORS[case]
    errors = []
    for device in ("npu", "cpu"):
        with pytest.raises(RuntimeError) as info:
            fn(device)
        errors.append(str(info.value).splitlines()[0])
    assert "Float" in errors[0]
    # PyTorch names the tensor type by device (torch.FloatTensor on CPU, npuFloatType on npu).
    same = [re.sub(r"but got \S+ instead", "but got <type> instead", e) for e in errors]
    assert same[0] == same[1]


# ---- embedding_bag ----------------------------------------------------------------

BAG_CASES = [
    # (mode, kwargs, with per_sample_weights)
    ("sum", {}, False),
    ("sum", {}, True),
    ("mean", {}, False),
    ("max", {}, False),
    ("sum", {"padding_idx": 1}, True),
    ("mean", {"padding_idx": 1}, False),
    ("max", {"padding_idx": 1}, False),
    ("sum", {"include_last_offset": True}, False),
]


def bag(device, weight, indices, offsets, mode, kwargs, psw, grad_seed=8):
    w = weight.to(device).requires_grad_(True)
    p = psw.to(device).requires_grad_(True) if psw is not None else None
    out = F.embedding_bag(indices.to(device), w, offsets.to(device), mode=mode, per_sample_weights=p, **kwargs)
    g = torch.randn(out.shape, generator=gen(grad_seed)).to(out.dtype).to(device)
    grads = torch.autograd.grad(out, [w] + ([p] if p is not None else []), g)
    return [out.detach(), *grads]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode,kwargs,weighted", BAG_CASES)
def test_embedding_bag_forward_backward(mode, kwargs, weighted, dtype):
    """Bags of several sizes, an empty one in the middle and one at the end, repeated rows."""
    weight = torch.randn(8, 5, generator=gen(9)).to(dtype)
    indices = torch.randint(0, 8, (12,), generator=gen(10))
    indices[3] = 1  # a padding index where padding_idx=1
    # With include_last_offset the last offset closes the last bag; without it, 12 starts an empty bag.
    offsets = torch.tensor([0, 2, 2, 7, 12])
    psw = torch.randn(12, generator=gen(11)).to(dtype) if weighted else None
    got = bag("npu", weight, indices, offsets, mode, kwargs, psw)
    want = bag("cpu", weight, indices, offsets, mode, kwargs, psw)
    for g, w in zip(got, want):
        close(g, w)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq_runs_cpu_kernel(mode):
    """CPU's embedding_bag scales by counts that are not the rows' frequencies; npu runs CPU's kernel
    (through the fallback, on the npu forward's offset2bag and bag_size) and so gives CPU's answer."""
    weight = torch.randn(8, 5, generator=gen(14))
    indices = torch.tensor([3, 1, 1, 5, 0, 0, 1, 0, 2])
    offsets = torch.tensor([0, 1, 4])
    kwargs = {"scale_grad_by_freq": True}
    npu_emu._C._set_fallback_mode("warn")
    try:
        got = bag("npu", weight, indices, offsets, mode, kwargs, None)
    finally:
        npu_emu._C._set_fallback_mode("error")
    for g, w in zip(got, bag("cpu", weight, indices, offsets, mode, kwargs, None)):
        close(g, w)


def test_embedding_bag_2d_input_and_gradcheck():
    weight = torch.randn(6, 3, dtype=torch.float64, generator=gen(12)).to("npu").requires_grad_(True)
    psw = torch.rand(2, 4, dtype=torch.float64, generator=gen(13)).to("npu").requires_grad_(True)
    indices = torch.tensor([[0, 2, 2, 5], [1, 0, 4, 4]], device="npu")
    for mode in ("sum", "mean", "max"):
        assert torch.autograd.gradcheck(lambda w: F.embedding_bag(indices, w, mode=mode), (weight,))
    assert torch.autograd.gradcheck(lambda w, p: F.embedding_bag(indices, w, mode="sum", per_sample_weights=p),
                                    (weight, psw))


def test_embedding_bag_bad_offsets():
    weight = torch.randn(5, 3, device="npu")
    indices = torch.tensor([0, 1, 2], device="npu")
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(indices, weight, torch.tensor([1, 2], device="npu")).cpu()
    with pytest.raises(RuntimeError, match="mode='sum'"):
        F.embedding_bag(indices, weight, torch.tensor([0], device="npu"), mode="mean",
                        per_sample_weights=torch.ones(3, device="npu"))
