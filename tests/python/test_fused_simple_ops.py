"""torch_npu's simple fused/custom ops (torch.ops.npu.* and torch_npu.*),
each against a plain-PyTorch reference of torch_npu's documented semantics,
computed on CPU. Under NPU_EMU_FALLBACK=error: npu_fast_gelu runs CANN's
aclnnFastGelu, the others are compositions of native aten ops."""

from __future__ import annotations

import math

import pytest
import torch

import npu_emu.torch_npu_compat as torch_npu
from npu_emu import debug
from native_guard import native_only  # noqa: F401  (fixture)

FLOATS = [torch.float32, torch.float16, torch.bfloat16]
# float16/bfloat16 compute in float32 and round once: a few ulps of the dtype.
TOL = {torch.float32: (1e-5, 1e-5), torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2),
       torch.float64: (1e-12, 1e-12)}


def close(actual: torch.Tensor, expected: torch.Tensor, dtype: torch.dtype | None = None) -> None:
    rtol, atol = TOL[dtype or expected.dtype]
    assert actual.device.type == "npu" or actual.device.type == "cpu"
    torch.testing.assert_close(actual.cpu().to(expected.dtype), expected, rtol=rtol, atol=atol)


def sample(shape: tuple[int, ...], dtype: torch.dtype, scale: float = 3.0, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


# ---- fast_gelu: CANN's FastGelu, x / (1 + exp(-1.702 x)) ------------------------

def fast_gelu_ref(x: torch.Tensor) -> torch.Tensor:
    x64 = x.double()
    return x64 / (1 + torch.exp(-1.702 * x64))


def fast_gelu_grad_ref(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    x64 = x.double()
    s = 1 / (1 + torch.exp(-1.702 * x64))
    return g.double() * (s + 1.702 * x64 * s * (1 - s))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["npu_fast_gelu", "fast_gelu"])
def test_fast_gelu_forward(native_only, name: str, dtype: torch.dtype) -> None:
    x = sample((4, 33), dtype)
    y = getattr(torch_npu, name)(x.to("npu"))
    assert y.dtype == dtype and y.shape == x.shape
    close(y, fast_gelu_ref(x).to(dtype), dtype)
    assert getattr(torch.ops.npu, name) is getattr(torch_npu, name)


def test_fast_gelu_large_magnitudes_do_not_overflow(native_only) -> None:
    x = torch.tensor([-200.0, -60.0, 0.0, 60.0, 200.0])
    y = torch_npu.npu_fast_gelu(x.to("npu")).cpu()
    # Mathematical values: ~0 far left, x far right.
    assert y[0].item() == 0.0 and abs(y[1].item()) < 1e-30 and y[2].item() == 0.0
    assert y[3].item() == 60.0 and y[4].item() == 200.0


@pytest.mark.parametrize("dtype", FLOATS)
def test_fast_gelu_backward(native_only, dtype: torch.dtype) -> None:
    x = sample((3, 17), dtype)
    g = sample((3, 17), dtype, scale=1.0, seed=1)
    xn = x.to("npu").requires_grad_()
    torch_npu.npu_fast_gelu(xn).backward(g.to("npu"))
    assert xn.grad.dtype == dtype
    close(xn.grad, fast_gelu_grad_ref(g, x).to(dtype), dtype)
    direct = torch.ops.npu.npu_fast_gelu_backward(g.to("npu"), x.to("npu"))
    close(direct, fast_gelu_grad_ref(g, x).to(dtype), dtype)


def test_fast_gelu_launches_canns_fast_gelu_ops(native_only) -> None:
    x = sample((8,), torch.float32).to("npu").requires_grad_()
    debug.reset_reports()
    torch_npu.fast_gelu(x).sum().backward()
    torch.npu.synchronize()
    launched = debug.native_report()
    assert launched.get("aclnnFastGelu") == 1 and launched.get("aclnnFastGeluBackward") == 1


def test_fast_gelu_gradcheck_float64() -> None:
    x = sample((5,), torch.float64).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(torch_npu.fast_gelu, (x,))


def test_fast_gelu_rejects_integer_input() -> None:
    with pytest.raises(RuntimeError, match="npu_fast_gelu: self must be a real floating tensor"):
        torch_npu.npu_fast_gelu(torch.arange(4, device="npu"))


# ---- activations --------------------------------------------------------------------

def gelu_ref(x: torch.Tensor, approximate: str) -> torch.Tensor:
    x = x.double()
    if approximate == "tanh":
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def silu_ref(x: torch.Tensor) -> torch.Tensor:
    x = x.double()
    return x / (1 + torch.exp(-x))


def mish_ref(x: torch.Tensor) -> torch.Tensor:
    x = x.double()
    return x * torch.tanh(torch.log1p(torch.exp(x)))


ACTIVATIONS = {
    "npu_gelu": (lambda x: torch_npu.npu_gelu(x), lambda x: gelu_ref(x, "none")),
    "npu_gelu_tanh": (lambda x: torch_npu.npu_gelu(x, approximate="tanh"), lambda x: gelu_ref(x, "tanh")),
    "npu_silu": (lambda x: torch_npu.npu_silu(x), silu_ref),
    "npu_mish": (lambda x: torch_npu.npu_mish(x), mish_ref),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_forward_and_backward(native_only, name: str, dtype: torch.dtype) -> None:
    op, ref = ACTIVATIONS[name]
    x = sample((2, 19), dtype)
    g = sample((2, 19), dtype, scale=1.0, seed=2)
    xn = x.to("npu").requires_grad_()
    y = op(xn)
    close(y.detach(), ref(x).to(dtype), dtype)
    y.backward(g.to("npu"))
    x64 = x.double().requires_grad_()
    ref(x64).backward(g.double())
    close(xn.grad, x64.grad.to(dtype), dtype)


def test_activation_backward_ops(native_only) -> None:
    x = sample((7,), torch.float32)
    g = sample((7,), torch.float32, scale=1.0, seed=3)
    for fwd_ref, bwd in [
        (lambda t: gelu_ref(t, "tanh"),
         lambda: torch.ops.npu.npu_gelu_backward(g.to("npu"), x.to("npu"), approximate="tanh")),
        (silu_ref, lambda: torch.ops.npu.npu_silu_backward(g.to("npu"), x.to("npu"), torch_npu.npu_silu(x.to("npu")))),
        (mish_ref, lambda: torch.ops.npu.npu_mish_backward(g.to("npu"), x.to("npu"))),
    ]:
        x64 = x.double().requires_grad_()
        fwd_ref(x64).backward(g.double())
        close(bwd(), x64.grad.float())


def test_npu_silu_inplace(native_only) -> None:
    x = sample((9,), torch.float32)
    xn = x.to("npu")
    assert torch_npu.npu_silu_(xn) is xn
    close(xn, silu_ref(x).float())


# ---- dtype cast ---------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [(torch.float32, torch.float16), (torch.float16, torch.float32),
                                     (torch.float32, torch.bfloat16), (torch.float32, torch.int32)])
def test_npu_dtype_cast(native_only, src: torch.dtype, dst: torch.dtype) -> None:
    x = sample((3, 5), src)
    y = torch_npu.npu_dtype_cast(x.to("npu"), dst)
    assert y.dtype == dst
    assert torch.equal(y.cpu(), x.to(dst))
    z = torch_npu._npu_dtype_cast(x.to("npu"), dst)
    assert torch.equal(z.cpu(), x.to(dst))


def test_npu_dtype_cast_backward_casts_the_gradient_back(native_only) -> None:
    x = sample((4,), torch.float32).to("npu").requires_grad_()
    y = torch_npu.npu_dtype_cast(x, torch.float16)
    (y * torch.arange(4, device="npu", dtype=torch.float16)).sum().backward()
    assert x.grad.dtype == torch.float32
    assert torch.equal(x.grad.cpu(), torch.arange(4, dtype=torch.float32))


def test_npu_dtype_cast_inplace(native_only) -> None:
    dst = torch.zeros(4, device="npu", dtype=torch.float16)
    src = torch.tensor([1.5, -2.25, 3.0, 0.5], device="npu")
    assert torch_npu.npu_dtype_cast_(dst, src) is dst
    assert torch.equal(dst.cpu(), src.cpu().half())


def test_npu_dtype_cast_rejects_non_dtype() -> None:
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        torch_npu.npu_dtype_cast(torch.ones(2, device="npu"), "float16")


# ---- layout ops: exact ---------------------------------------------------------------

@pytest.mark.parametrize("transpose_first", [True, False])
def test_npu_confusion_transpose_and_backward(native_only, transpose_first: bool) -> None:
    x = sample((2, 3, 4), torch.float32)
    perm = [1, 0, 2]
    shape = [3, 8] if transpose_first else [2, 12, 1]
    if transpose_first:
        expected = x.permute(perm).reshape(shape)
    else:
        expected = x.reshape(shape).permute(perm)
    xn = x.to("npu").requires_grad_()
    y = torch_npu.npu_confusion_transpose(xn, perm, shape, transpose_first)
    assert y.is_contiguous()
    assert torch.equal(y.detach().cpu(), expected)
    w = sample(tuple(expected.shape), torch.float32, seed=4)
    (y * w.to("npu")).sum().backward()
    xr = x.clone().requires_grad_()
    ((xr.permute(perm).reshape(shape) if transpose_first else xr.reshape(shape).permute(perm)) * w).sum().backward()
    assert torch.equal(xn.grad.cpu(), xr.grad)
    # torch_npu's derivative: the backward op with transpose_first negated.
    direct = torch.ops.npu.npu_confusion_transpose_backward(w.to("npu"), perm, list(x.shape), not transpose_first)
    assert torch.equal(direct.cpu(), xr.grad)


def test_npu_transpose_broadcast_slice(native_only) -> None:
    x = sample((2, 3, 4), torch.float32)
    xn = x.to("npu")
    assert torch.equal(torch_npu.npu_transpose(xn, [2, 0, 1]).cpu(), x.permute(2, 0, 1).contiguous())
    assert torch.equal(torch_npu.npu_transpose(xn, [0, 2, 1], require_contiguous=False).cpu(), x.transpose(1, 2))
    out = torch.empty(0, device="npu")
    torch.ops.npu.npu_transpose.out(xn, [1, 2, 0], out=out)
    assert torch.equal(out.cpu(), x.permute(1, 2, 0))
    b = sample((3, 1), torch.float32)
    assert torch.equal(torch_npu.npu_broadcast(b.to("npu"), [2, 3, 5]).cpu(), b.expand(2, 3, 5))
    assert torch.equal(torch_npu.npu_slice(xn, [1, 0, 1], [1, 2, 3]).cpu(), x[1:2, 0:2, 1:4])
    with pytest.raises(RuntimeError, match="npu_transpose: perm repeats dim"):
        torch_npu.npu_transpose(xn, [0, 0, 1])
    with pytest.raises(RuntimeError, match="npu_slice: dim 2"):
        torch_npu.npu_slice(xn, [0, 0, 2], [1, 1, 3])


def test_npu_indexing_is_strided_slice(native_only) -> None:
    x = sample((4, 6, 5), torch.float32)
    xn = x.to("npu")
    assert torch.equal(torch_npu.npu_indexing(xn, [1, 0, 0], [3, 6, 5], [1, 2, 2]).cpu(), x[1:3, 0:6:2, 0:5:2])
    # begin_mask bit 0: from the start; end_mask bit 1: to the end; negative bounds wrap.
    assert torch.equal(torch_npu.npu_indexing(xn, [2, 1, -3], [3, 0, -1], [1, 1, 1], begin_mask=1, end_mask=2).cpu(),
                       x[0:3, 1:, -3:-1])
    # shrink_axis_mask bit 1: keep element begin[1] and drop the dim.
    assert torch.equal(torch_npu.npu_indexing(xn, [0, 4], [4, 5], [1, 1], shrink_axis_mask=2).cpu(), x[:, 4])
    with pytest.raises(RuntimeError, match="ellipsis_mask and new_axis_mask are not supported"):
        torch_npu.npu_indexing(xn, [0], [1], [1], new_axis_mask=1)


def test_npu_pad(native_only) -> None:
    x = sample((2, 3), torch.float32)
    y = torch_npu.npu_pad(x.to("npu"), [1, 0, 2, 3]).cpu()
    expected = torch.zeros(3, 8)
    expected[1:, 2:5] = x
    assert torch.equal(y, expected)


def test_npu_one_hot(native_only) -> None:
    labels = torch.tensor([[0, 3], [2, 1]], dtype=torch.int32)
    y = torch_npu.npu_one_hot(labels.to("npu"), depth=4, on_value=2.5, off_value=-1).cpu()
    expected = torch.full((2, 2, 4), -1.0)
    for idx in [(0, 0, 0), (0, 1, 3), (1, 0, 2), (1, 1, 1)]:
        expected[idx] = 2.5
    assert y.dtype == torch.float32 and torch.equal(y, expected)
    # num_classes is the axis the new dim goes to.
    y0 = torch_npu.npu_one_hot(labels.to("npu"), num_classes=0, depth=4).cpu()
    assert torch.equal(y0, (expected == 2.5).float().permute(2, 0, 1))


# ---- max/min with int32 indices -------------------------------------------------------

@pytest.mark.parametrize("name", ["npu_max", "npu_min"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_npu_max_min(native_only, name: str, keepdim: bool) -> None:
    x = torch.randperm(24, generator=torch.Generator().manual_seed(5)).float().reshape(2, 3, 4)
    xn = x.to("npu").requires_grad_()
    values, indices = getattr(torch_npu, name)(xn, 1, keepdim)
    ref_values, ref_indices = (torch.max if name == "npu_max" else torch.min)(x, 1, keepdim)
    assert indices.dtype == torch.int32
    assert torch.equal(values.detach().cpu(), ref_values) and torch.equal(indices.cpu().long(), ref_indices)
    g = sample(tuple(values.shape), torch.float32, seed=6)
    values.backward(g.to("npu"))
    expected = torch.zeros_like(x).scatter(1, ref_indices if keepdim else ref_indices.unsqueeze(1),
                                           g if keepdim else g.unsqueeze(1))
    assert torch.equal(xn.grad.cpu(), expected)
    backward_op = getattr(torch.ops.npu, f"{name}_backward")
    assert torch.equal(backward_op(g.to("npu"), 1, indices, list(x.shape), keepdim).cpu(), expected)


# ---- layer_norm_eval, linear, bmmV2, softmax cross entropy ----------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_npu_layer_norm_eval(native_only, dtype: torch.dtype) -> None:
    x = sample((3, 4, 8), dtype)
    w = sample((8,), dtype, scale=1.0, seed=7)
    b = sample((8,), dtype, scale=1.0, seed=8)
    y = torch_npu.npu_layer_norm_eval(x.to("npu"), [8], w.to("npu"), b.to("npu"), 1e-5)
    x64 = x.double()
    mean = x64.mean(-1, keepdim=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
    expected = (x64 - mean) / torch.sqrt(var + 1e-5) * w.double() + b.double()
    assert y.dtype == dtype
    close(y, expected.to(dtype), dtype)
    close(torch_npu.npu_layer_norm_eval(x.to("npu"), [8]), ((x64 - mean) / torch.sqrt(var + 1e-5)).to(dtype), dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_npu_linear_and_backward(native_only, dtype: torch.dtype) -> None:
    x, w, b = sample((5, 6), dtype, 1.0), sample((4, 6), dtype, 1.0, 1), sample((4,), dtype, 1.0, 2)
    xn, wn, bn = (t.to("npu").requires_grad_() for t in (x, w, b))
    y = torch_npu.npu_linear(xn, wn, bn)
    close(y.detach(), (x.double() @ w.double().T + b.double()).to(dtype), dtype)
    g = sample((5, 4), dtype, 1.0, 3)
    y.backward(g.to("npu"))
    close(xn.grad, (g.double() @ w.double()).to(dtype), dtype)
    close(wn.grad, (g.double().T @ x.double()).to(dtype), dtype)
    close(bn.grad, g.double().sum(0).to(dtype), dtype)
    gi, gw = torch.ops.npu.npu_linear_backward(g.to("npu"), x.to("npu"), w.to("npu"))
    close(gi, (g.double() @ w.double()).to(dtype), dtype)
    close(gw, (g.double().T @ x.double()).to(dtype), dtype)


def test_npu_bmmV2_and_backward(native_only) -> None:
    a, m = sample((2, 3, 4), torch.float32, 1.0), sample((2, 4, 5), torch.float32, 1.0, 1)
    an, mn = a.to("npu").requires_grad_(), m.to("npu").requires_grad_()
    y = torch_npu.npu_bmmV2(an, mn, [])
    close(y.detach(), (a.double() @ m.double()).float())
    g = sample((2, 3, 5), torch.float32, 1.0, 2)
    y.backward(g.to("npu"))
    close(an.grad, (g.double() @ m.double().transpose(1, 2)).float())
    close(mn.grad, (a.double().transpose(1, 2) @ g.double()).float())
    with pytest.raises(RuntimeError, match="npu_bmmV2: output_sizes"):
        torch_npu.npu_bmmV2(an, mn, [2, 3, 6])


@pytest.mark.parametrize("dtype", FLOATS)
def test_npu_softmax_cross_entropy_with_logits(native_only, dtype: torch.dtype) -> None:
    logits = sample((4, 7), dtype, 2.0)
    labels = torch.softmax(sample((4, 7), torch.float64, 1.0, 9), -1).to(dtype)
    ln = logits.to("npu").requires_grad_()
    loss = torch_npu.npu_softmax_cross_entropy_with_logits(ln, labels.to("npu"))
    z = logits.double()
    m = z.max(-1, keepdim=True).values
    log_p = z - m - torch.log(torch.exp(z - m).sum(-1, keepdim=True))
    expected = -(labels.double() * log_p).sum(-1)
    assert loss.shape == (4,)
    close(loss.detach(), expected.to(dtype), dtype)
    g = sample((4,), dtype, 1.0, 10)
    loss.backward(g.to("npu"))
    expected_grad = g.double().unsqueeze(-1) * (torch.exp(log_p) - labels.double())
    close(ln.grad, expected_grad.to(dtype), dtype)
    direct = torch.ops.npu.npu_softmax_cross_entropy_with_logits_backward(g.to("npu"), logits.to("npu"),
                                                                         labels.to("npu"))
    close(direct, expected_grad.to(dtype), dtype)


# ---- npu_format_cast(customize_dtype=...) ---------------------------------------------

def test_npu_format_cast_customize_dtype_picks_the_nz_block() -> None:
    x = sample((5, 40), torch.float16).to("npu")
    plain = torch_npu.npu_format_cast(x, 29)
    custom = torch_npu.npu_format_cast(x, 29, customize_dtype=torch.int8)
    # FRACTAL_NZ of [5, 40]: rows pad to 16; float16's C0 is 16 (40 cols ->
    # 3 blocks), int8's is 32 (40 cols -> 2 blocks of 32 float16 elements).
    assert torch_npu.get_npu_format(plain) == 29
    assert torch_npu.get_storage_size(plain) == 3 * 16 * 16
    assert torch_npu.get_storage_size(custom) == 2 * 16 * 32
    assert torch.equal(custom.cpu(), x.cpu()) and torch.equal(plain.cpu(), x.cpu())


def _nz_storage(rows: int, cols: int, c0: int) -> int:
    """FRACTAL_NZ's element count for a [rows, cols] matrix: rows pad to 16, cols to blocks of c0."""
    return -(-cols // c0) * -(-rows // 16) * 16 * c0


def test_npu_format_cast_customize_dtype_takes_torch_npus_int_codes() -> None:
    x = sample((5, 40), torch.float16).to("npu")
    # int32's block is 32 bytes / 4 = 8 elements; the ScalarType code (3), the
    # torch_npu code (aclDataType ACL_INT32 = 3, + 256) and the dtype agree.
    for custom in (torch.int32, 3, 256 + 3):
        y = torch_npu.npu_format_cast(x, 29, customize_dtype=custom)
        assert torch_npu.get_storage_size(y) == _nz_storage(5, 40, 8), custom
        assert torch.equal(y.cpu(), x.cpu())
    y = torch.ops.npu.npu_format_cast(x, 29, customize_dtype=256 + 2)  # ACL_INT8: 32 elements per block
    assert torch_npu.get_storage_size(y) == _nz_storage(5, 40, 32)
    # The Tensor form and torch_npu's private overloads take it too.
    like = torch_npu.npu_format_cast(x, torch_npu.npu_format_cast(x, 29), customize_dtype=torch.int8)
    assert torch_npu.get_storage_size(like) == _nz_storage(5, 40, 32)
    plain = torch_npu._npu_format_cast(x, 29)
    assert torch_npu.get_npu_format(plain) == 29 and torch_npu.get_storage_size(plain) == _nz_storage(5, 40, 16)
    for z in (torch.ops.npu._npu_format_cast.aclnn(x, 29, 1), torch.ops.npu._npu_format_cast.input_dtype(x, 29, 1, 5)):
        assert torch_npu.get_storage_size(z) == _nz_storage(5, 40, 32)
        assert torch.equal(z.cpu(), x.cpu())


def test_npu_format_cast_refuses_dtype_codes_it_cannot_honour() -> None:
    x = sample((5, 40), torch.float16).to("npu")
    with pytest.raises(NotImplementedError, match="customize_dtype 285 .* not emulated"):
        torch_npu.npu_format_cast(x, 29, customize_dtype=256 + 29)  # ACL_INT4: no PyTorch dtype
    with pytest.raises(NotImplementedError, match="input_dtype differs"):
        torch_npu.npu_format_cast(x, 29, input_dtype=torch.int16)
    with pytest.raises(RuntimeError, match="customize_dtype must be"):
        torch.ops.npu.npu_format_cast(x, 29, customize_dtype=-3)
    with pytest.raises(NotImplementedError, match="not emulated in place"):
        torch_npu.npu_format_cast_(x.clone(), 29, customize_dtype=torch.int8)
    same = x.clone()
    torch_npu.npu_format_cast_(same, 29, customize_dtype=torch.float16, input_dtype=torch.float16)
    assert torch_npu.get_npu_format(same) == 29 and torch.equal(same.cpu(), x.cpu())


def test_npu_bmm_v2_backward_ops_reduce_broadcast_batches(native_only) -> None:
    a = sample((2, 3, 4), torch.float32)
    b = sample((4, 5), torch.float32, seed=1)
    grad = sample((2, 3, 5), torch.float32, seed=2)
    an, bn = a.to("npu").requires_grad_(), b.to("npu").requires_grad_()
    torch_npu.npu_bmmV2(an, bn, []).backward(grad.to("npu"))
    ac, bc = a.clone().requires_grad_(), b.clone().requires_grad_()
    torch.matmul(ac, bc).backward(grad)
    d1 = torch_npu.npu_bmm_v2_mat1_backward(grad.to("npu"), an.detach(), bn.detach(), list(a.shape))
    d2 = torch_npu.npu_bmm_v2_mat2_backward(grad.to("npu"), an.detach(), bn.detach(), list(b.shape))
    torch.testing.assert_close(d1.cpu(), ac.grad)
    torch.testing.assert_close(d2.cpu(), bc.grad)
    torch.testing.assert_close(an.grad.cpu(), ac.grad)


def test_npu_dtype_cast_input_dtype_must_be_the_inputs_own() -> None:
    x = sample((4,), torch.float32).to("npu")
    assert torch.equal(torch_npu.npu_dtype_cast(x, torch.float16, input_dtype=torch.float32).cpu(), x.cpu().half())
    with pytest.raises(NotImplementedError, match="input_dtype"):
        torch_npu.npu_dtype_cast(x, torch.float16, input_dtype=torch.int16)
