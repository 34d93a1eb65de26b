"""torch_npu's fused LLM ops (torch.ops.npu.* / torch_npu.*) on npu-emu's own
backend: each forward and backward against a plain-PyTorch reference of
torch_npu's documented semantics, written here and run on CPU. Every test
forbids the CPU fallback (native_only); the ops are aclnn kernels
(ops/table/fused.yaml, aclnnRmsNorm/-Grad, aclnnFlashAttentionScore/-Grad)
or compositions of native ops (npu_dropout_with_add_softmax, npu_grouped_matmul)."""

from __future__ import annotations

import math

import pytest
import torch

import npu_emu  # noqa: F401
import npu_emu.torch_npu_compat as torch_npu
from native_guard import native_only  # noqa: F401
from npu_emu import debug

pytestmark = pytest.mark.usefixtures("native_only")

REDUCED = [torch.float16, torch.bfloat16]
TOL = {torch.float32: (1e-5, 1e-5), torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2),
       torch.float64: (1e-10, 1e-10)}


def rand(*shape, dtype=torch.float32, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


def close(actual: torch.Tensor, expected: torch.Tensor, dtype: torch.dtype, scale: float = 1.0) -> None:
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(actual.cpu().double(), expected.cpu().double(), rtol=rtol * scale, atol=atol * scale)


def leaves(*ts: torch.Tensor, device: str) -> list[torch.Tensor]:
    return [t.detach().clone().to(device).requires_grad_() for t in ts]


def launched(op: str) -> int:
    return debug.native_report().get(op, 0)


# --- references: torch_npu's documented semantics in float64 -------------------

def ref_rms_norm(x, gamma, eps):
    xd = x.double()
    dims = tuple(range(x.dim() - gamma.dim(), x.dim()))
    rstd = torch.rsqrt(xd.pow(2).mean(dims, keepdim=True) + eps)
    return xd * rstd * gamma.double(), rstd


def rotate(x, mode):
    if mode == "half":
        x1, x2 = x.chunk(2, -1)
        return torch.cat((-x2, x1), -1)
    pairs = x.unflatten(-1, (-1, 2))
    return torch.stack((-pairs[..., 1], pairs[..., 0]), -1).flatten(-2)


def ref_rotary(x, r1, r2, mode="half"):
    return x.double() * r1.double() + rotate(x.double(), mode) * r2.double()


def ref_swiglu(x, dim=-1):
    a, b = x.double().chunk(2, dim)
    return torch.nn.functional.silu(a) * b


def ref_scaled_masked_softmax(x, mask, scale, fixed_triu):
    if fixed_triu:
        mask = torch.ones(x.shape[-2:], dtype=torch.bool).triu(1)
    return torch.softmax((x.double() * scale).masked_fill(mask, -1e4), -1)


# --- npu_rms_norm / npu_add_rms_norm ---------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
@pytest.mark.parametrize("gamma_shape", [(16,), (3, 16)])
def test_rms_norm_forward_backward(dtype, gamma_shape):
    x, gamma = rand(2, 3, 16, dtype=dtype), rand(*gamma_shape, dtype=dtype, seed=1)
    grad = rand(2, 3, 16, dtype=dtype, seed=2)
    before = launched("aclnnRmsNorm"), launched("aclnnRmsNormGrad")
    xn, gn = leaves(x, gamma, device="npu")
    y, rstd = torch_npu.npu_rms_norm(xn, gn, epsilon=1e-5)
    y.backward(grad.npu())
    assert (launched("aclnnRmsNorm"), launched("aclnnRmsNormGrad")) == (before[0] + 1, before[1] + 1)
    xr, gr = leaves(x.double(), gamma.double(), device="cpu")
    y_ref, rstd_ref = ref_rms_norm(xr, gr, 1e-5)
    y_ref.backward(grad.double())
    assert y.dtype == dtype and rstd.dtype == torch.float32
    assert rstd.shape == (2, 3, 1) if len(gamma_shape) == 1 else rstd.shape == (2, 1, 1)
    close(y, y_ref, dtype, 2)
    close(rstd, rstd_ref, torch.float32, 10)
    close(xn.grad, xr.grad, dtype, 4)
    close(gn.grad, gr.grad, dtype, 8)
    assert gn.grad.dtype == dtype


def test_rms_norm_gradcheck_float64():
    x, gamma = leaves(rand(2, 5, dtype=torch.float64), rand(5, dtype=torch.float64, seed=1), device="npu")
    assert torch.autograd.gradcheck(lambda a, b: torch.ops.npu.npu_rms_norm(a, b, 1e-6)[0], (x, gamma))


@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
def test_add_rms_norm(dtype):
    x1, x2, gamma = rand(4, 32, dtype=dtype), rand(4, 32, dtype=dtype, seed=1), rand(32, dtype=dtype, seed=2)
    y, rstd, x = torch_npu.npu_add_rms_norm(x1.npu(), x2.npu(), gamma.npu(), 1e-6)
    x_ref = x1 + x2
    y_ref, rstd_ref = ref_rms_norm(x_ref, gamma, 1e-6)
    torch.testing.assert_close(x.cpu(), x_ref)  # one rounding of the sum, as CPU's add
    close(y, y_ref, dtype, 2)
    close(rstd, rstd_ref, torch.float32, 10)
    assert (y.dtype, rstd.dtype, x.dtype) == (dtype, torch.float32, dtype)


# --- npu_rotary_mul / npu_apply_rotary_pos_emb -----------------------------------

@pytest.mark.parametrize("mode", ["half", "interleave"])
@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
def test_rotary_mul_forward_backward(mode, dtype):
    x = rand(2, 5, 3, 8, dtype=dtype)
    r1, r2 = rand(1, 5, 1, 8, dtype=dtype, seed=1), rand(1, 5, 1, 8, dtype=dtype, seed=2)
    grad = rand(2, 5, 3, 8, dtype=dtype, seed=3)
    xn, r1n, r2n = leaves(x, r1, r2, device="npu")
    out = torch_npu.npu_rotary_mul(xn, r1n, r2n, rotary_mode=mode)
    out.backward(grad.npu())
    xr, r1r, r2r = leaves(x.double(), r1.double(), r2.double(), device="cpu")
    ref = ref_rotary(xr, r1r, r2r, mode)
    ref.backward(grad.double())
    close(out, ref, dtype, 2)
    close(xn.grad, xr.grad, dtype, 2)
    close(r1n.grad, r1r.grad, dtype, 8)
    close(r2n.grad, r2r.grad, dtype, 8)


@pytest.mark.parametrize("mode", ["half", "interleave"])
def test_rotary_mul_gradcheck_float64(mode):
    args = leaves(rand(2, 3, 4, dtype=torch.float64), rand(1, 3, 4, dtype=torch.float64, seed=1),
                  rand(3, 4, dtype=torch.float64, seed=2), device="npu")
    assert torch.autograd.gradcheck(lambda x, a, b: torch.ops.npu.npu_rotary_mul(x, a, b, mode), args)


def test_rotary_mul_rejects_bad_mode_and_rotate():
    x = rand(2, 4).npu()
    with pytest.raises(RuntimeError, match="rotary_mode must be 'half' or 'interleave'"):
        torch_npu.npu_rotary_mul(x, x, x, "full")
    with pytest.raises(RuntimeError, match="rotate .* is not emulated"):
        torch_npu.npu_rotary_mul(x, x, x, "half", rotate=x)


@pytest.mark.parametrize("layout,q_shape,c_shape", [("BSND", (2, 5, 3, 8), (2, 5, 1, 8)),
                                                    ("BNSD", (2, 3, 5, 8), (2, 1, 5, 8)),
                                                    ("SBND", (5, 2, 3, 8), (5, 2, 1, 8))])
@pytest.mark.parametrize("mode", ["half", "interleave"])
def test_apply_rotary_pos_emb_in_place(layout, q_shape, c_shape, mode):
    q, k = rand(*q_shape), rand(*q_shape[:-2], 1, 8, seed=1) if layout != "BNSD" else rand(2, 1, 5, 8, seed=1)
    cos, sin = rand(*c_shape, seed=2), rand(*c_shape, seed=3)
    qn, kn = q.npu(), k.npu()
    q_out, k_out = torch_npu.npu_apply_rotary_pos_emb(qn, kn, cos.npu(), sin.npu(), layout, mode)
    close(qn, ref_rotary(q, cos, sin, mode), torch.float32, 2)
    close(kn, ref_rotary(k, cos, sin, mode), torch.float32, 2)
    assert q_out.data_ptr() == qn.data_ptr() and k_out.data_ptr() == kn.data_ptr()


# --- npu_swiglu --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_swiglu_forward_backward(dtype, dim):
    x = rand(4, 6, 8, dtype=dtype)
    out_shape = list(x.shape)
    out_shape[dim] //= 2
    grad = rand(*out_shape, dtype=dtype, seed=1)
    (xn,) = leaves(x, device="npu")
    out = torch_npu.npu_swiglu(input=xn, dim=dim)  # torch_npu's argument names
    out.backward(grad.npu())
    (xr,) = leaves(x.double(), device="cpu")
    ref = ref_swiglu(xr, dim)
    ref.backward(grad.double())
    close(out, ref, dtype, 2)
    close(xn.grad, xr.grad, dtype, 4)


def test_swiglu_gradcheck_float64_and_odd_dim():
    (x,) = leaves(rand(3, 6, dtype=torch.float64), device="npu")
    assert torch.autograd.gradcheck(lambda a: torch.ops.npu.npu_swiglu(a, -1), (x,))
    with pytest.raises(RuntimeError, match="must be even"):
        torch_npu.npu_swiglu(rand(3, 5).npu())


# --- npu_scaled_masked_softmax -----------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
@pytest.mark.parametrize("fixed_triu", [False, True])
def test_scaled_masked_softmax_forward_backward(dtype, fixed_triu):
    x = rand(2, 3, 6, 6, dtype=dtype)
    mask = rand(2, 1, 6, 6, seed=1) > 0
    grad = rand(2, 3, 6, 6, dtype=dtype, seed=2)
    (xn,) = leaves(x, device="npu")
    y = torch_npu.npu_scaled_masked_softmax(xn, mask.npu(), 0.7, fixed_triu)
    y.backward(grad.npu())
    (xr,) = leaves(x.double(), device="cpu")
    ref = ref_scaled_masked_softmax(xr, mask, 0.7, fixed_triu)
    ref.backward(grad.double())
    close(y, ref, dtype, 2)
    close(xn.grad, xr.grad, dtype, 4)


def test_scaled_masked_softmax_gradcheck_float64():
    (x,) = leaves(rand(1, 2, 4, 4, dtype=torch.float64), device="npu")
    mask = (rand(1, 1, 4, 4, seed=1) > 0.5).npu()
    assert torch.autograd.gradcheck(lambda a: torch.ops.npu.npu_scaled_masked_softmax(a, mask, 2, False), (x,))


# --- npu_fusion_attention ------------------------------------------------------------

def to_bnsd(t, layout, heads):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "SBH":
        t = t.transpose(0, 1)
    return t.unflatten(-1, (heads, -1)).transpose(1, 2)


def from_bnsd(t, layout):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    t = t.transpose(1, 2).flatten(-2)
    return t.transpose(0, 1) if layout == "SBH" else t


def ref_attention(q, k, v, layout, heads, scale, mask=None, sparse_mode=0, pre=2147483647, nxt=2147483647):
    kv_heads = k.shape[-1] // (q.shape[-1] // heads) if layout in ("BSH", "SBH") else heads
    q = to_bnsd(q.double(), layout, heads)
    k, v = (to_bnsd(t.double(), layout, kv_heads) for t in (k, v))
    rep = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    s1, s2 = q.shape[2], k.shape[2]
    i = torch.arange(s1).unsqueeze(1)
    j = torch.arange(s2).unsqueeze(0)
    hidden = torch.zeros(s1, s2, dtype=torch.bool)
    if sparse_mode in (0, 1) and mask is not None:
        hidden = mask.bool() | hidden
        if sparse_mode == 0:
            hidden = hidden | (j > i + nxt) | (j < i - pre)
    elif sparse_mode == 2:
        hidden = j > i
    elif sparse_mode == 3:
        hidden = j > i + (s2 - s1)
    scores = (q @ k.transpose(-1, -2) * scale).masked_fill(hidden, float("-inf"))
    return from_bnsd(torch.softmax(scores, -1) @ v, layout)


LAYOUTS = {  # (query shape, key/value shape) with B=2, N=4 (2 key/value heads), S1=5, S2=7, D=8
    "BNSD": ((2, 4, 5, 8), (2, 2, 7, 8)),
    "BSND": ((2, 5, 4, 8), (2, 7, 2, 8)),
    "BSH": ((2, 5, 32), (2, 7, 16)),
    "SBH": ((5, 2, 32), (7, 2, 16)),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [torch.float32, *REDUCED])
def test_fusion_attention_layouts_forward_backward(layout, dtype):
    q_shape, kv_shape = LAYOUTS[layout]
    q, k, v = rand(*q_shape, dtype=dtype), rand(*kv_shape, dtype=dtype, seed=1), rand(*kv_shape, dtype=dtype, seed=2)
    grad = rand(*q_shape, dtype=dtype, seed=3)
    mask = rand(5, 7, seed=4) > 1.0
    scale = 1 / math.sqrt(8)
    before = launched("aclnnFlashAttentionScore"), launched("aclnnFlashAttentionScoreGrad")
    qn, kn, vn = leaves(q, k, v, device="npu")
    out, smax, ssum, _sout, seed, offset, numels = torch_npu.npu_fusion_attention(
        qn, kn, vn, 4, layout, atten_mask=mask.npu(), scale=scale)
    out.backward(grad.npu())
    assert (launched("aclnnFlashAttentionScore"), launched("aclnnFlashAttentionScoreGrad")) == (
        before[0] + 1, before[1] + 1)
    assert smax.shape == ssum.shape == (2, 4, 5, 8) and smax.dtype == torch.float32
    qr, kr, vr = leaves(q.double(), k.double(), v.double(), device="cpu")
    ref = ref_attention(qr, kr, vr, layout, 4, scale, mask)
    ref.backward(grad.double())
    close(out, ref, dtype, 2)
    for got, want in ((qn, qr), (kn, kr), (vn, vr)):
        close(got.grad, want.grad, dtype, 4)


@pytest.mark.parametrize("sparse_mode,pre,nxt,with_mask", [(0, 2, 1, True), (1, 0, 0, True), (2, 0, 0, False),
                                                           (3, 0, 0, False), (0, 2147483647, 2147483647, False)])
def test_fusion_attention_sparse_modes(sparse_mode, pre, nxt, with_mask):
    q, k, v = rand(1, 2, 5, 8), rand(1, 2, 7, 8, seed=1), rand(1, 2, 7, 8, seed=2)
    mask = rand(5, 7, seed=3) > 0.8 if with_mask else None
    # sparse_mode 2/3 take CANN's compressed 2048 x 2048 triangle; it is implied.
    given = mask if with_mask else (torch.ones(2048, 2048, dtype=torch.bool).triu(1) if sparse_mode in (2, 3)
                                    else None)
    grad = rand(1, 2, 5, 8, seed=4)
    qn, kn, vn = leaves(q, k, v, device="npu")
    out = torch_npu.npu_fusion_attention(qn, kn, vn, 2, "BNSD", atten_mask=None if given is None else given.npu(),
                                         scale=0.3, pre_tockens=pre, next_tockens=nxt, sparse_mode=sparse_mode)[0]
    out.backward(grad.npu())
    qr, kr, vr = leaves(q.double(), k.double(), v.double(), device="cpu")
    ref = ref_attention(qr, kr, vr, "BNSD", 2, 0.3, mask, sparse_mode, pre, nxt)
    ref.backward(grad.double())
    close(out, ref, torch.float32, 2)
    close(qn.grad, qr.grad, torch.float32, 4)
    close(vn.grad, vr.grad, torch.float32, 4)


def test_prompt_and_incre_flash_attention():
    q, k, v = rand(2, 5, 32), rand(2, 7, 32, seed=1), rand(2, 7, 32, seed=2)
    mask = rand(2, 1, 5, 7, seed=3) > 0.9
    out = torch_npu.npu_prompt_flash_attention(q.npu(), k.npu(), v.npu(), num_heads=4, input_layout="BSH",
                                               scale_value=0.25, atten_mask=mask.npu(), next_tokens=65535)
    close(out, ref_attention(q, k, v, "BSH", 4, 0.25, mask), torch.float32, 2)
    q1 = rand(2, 1, 32, seed=4)
    kv_mask = rand(2, 1, 1, 7, seed=5) > 0.5
    out1 = torch_npu.npu_incre_flash_attention(q1.npu(), k.npu(), v.npu(), num_heads=4, input_layout="BSH",
                                               scale_value=0.25, atten_mask=kv_mask.npu())
    close(out1, ref_attention(q1, k, v, "BSH", 4, 0.25, kv_mask, sparse_mode=1), torch.float32, 2)
    with pytest.raises(RuntimeError, match="block_table"):
        torch_npu.npu_incre_flash_attention(q1.npu(), k.npu(), v.npu(), num_heads=4,
                                            block_table=torch.zeros(2, 1, dtype=torch.int32).npu())


# --- npu_dropout_with_add_softmax ------------------------------------------------------

@pytest.mark.parametrize("prob", [0.0, 0.4])
def test_dropout_with_add_softmax(prob):
    x1, x2 = rand(2, 3, 8), rand(2, 3, 8, seed=1)
    grad = rand(2, 3, 8, seed=2)
    x2n, x1n = leaves(x2, x1, device="npu")
    mask, softmax_out, out = torch_npu.npu_dropout_with_add_softmax(x2n, x1n, 0.5, prob, -1)
    out.backward(grad.npu())
    x2r, x1r = leaves(x2.double(), x1.double(), device="cpu")
    sm = torch.softmax(x1r + 0.5 * x2r, -1)
    keep = mask.cpu().double()
    ref = sm * keep / (1 - prob)
    ref.backward(grad.double())
    assert mask.dtype == torch.uint8 and set(mask.cpu().unique().tolist()) <= {0, 1}
    if prob == 0.0:
        assert bool(mask.all())
    close(softmax_out, sm, torch.float32)
    close(out, ref, torch.float32)
    close(x1n.grad, x1r.grad, torch.float32)
    close(x2n.grad, x2r.grad, torch.float32)
    g_self, g_x1 = torch.ops.npu.npu_dropout_with_add_softmax_backward(grad.npu(), mask, softmax_out, 0.5, prob, -1)
    close(g_self, x2r.grad, torch.float32)
    close(g_x1, x1r.grad, torch.float32)


# --- npu_grouped_matmul ------------------------------------------------------------------

def test_grouped_matmul_lists_and_group_list():
    xs = [rand(3, 4), rand(5, 4, seed=1)]
    ws = [rand(4, 6, seed=2), rand(4, 6, seed=3)]
    bs = [rand(6, seed=4), rand(6, seed=5)]
    xn = leaves(*xs, device="npu")
    wn = leaves(*ws, device="npu")
    ys = torch_npu.npu_grouped_matmul(xn, wn, bias=[b.npu() for b in bs])
    refs = [x @ w + b for x, w, b in zip(xs, ws, bs)]
    assert len(ys) == 2
    for y, r in zip(ys, refs):
        close(y, r, torch.float32)
    sum(y.sum() for y in ys).backward()
    close(wn[0].grad, xs[0].sum(0, keepdim=True).T.expand(4, 6), torch.float32)
    # group_list splits one x's rows (cumulative ends, group_list_type 0; counts, 1); split_item 3: one output.
    x = rand(8, 4, seed=6)
    w3 = rand(2, 4, 6, seed=7)
    for group_list, kind in (([3, 8], 0), ([3, 5], 1)):
        (y,) = torch_npu.npu_grouped_matmul([x.npu()], [w3.npu()], group_list=torch.tensor(group_list).npu(),
                                            split_item=3, group_type=0, group_list_type=kind)
        close(y, torch.cat((x[:3] @ w3[0], x[3:] @ w3[1])), torch.float32)
    with pytest.raises(NotImplementedError, match="quantized grouped matmul"):
        torch_npu.npu_grouped_matmul([x.npu()], [w3[0].npu()], scale=[torch.ones(6).npu()])


# --- npu_moe_gating_top_k_softmax ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_moe_gating_top_k_softmax(dtype):
    x = rand(6, 8, dtype=dtype)
    finished = torch.tensor([False, True, False, False, True, False])
    y, expert, row = torch_npu.npu_moe_gating_top_k_softmax(x.npu(), finished.npu(), k=3)
    probs = torch.softmax(x.double(), -1)
    top, idx = probs.topk(3, -1)
    close(y, top, dtype, 2)
    idx[finished] = 8
    torch.testing.assert_close(expert.cpu(), idx.int())
    torch.testing.assert_close(row.cpu(), torch.arange(18, dtype=torch.int32).reshape(3, 6).T)
    assert y.dtype == dtype and expert.dtype == row.dtype == torch.int32


# --- scatter_update -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8])
def test_scatter_update(dtype):
    data = (rand(3, 2, 10, 4) * 10).to(dtype)
    updates = (rand(3, 2, 3, 4, seed=1) * 10).to(dtype)
    indices = torch.tensor([0, 4, 7])
    expected = data.clone()
    for b, start in enumerate(indices.tolist()):
        expected[b, :, start:start + 3] = updates[b]
    dn = data.npu()
    out = torch_npu.scatter_update(dn, indices.npu(), updates.npu(), -2)
    torch.testing.assert_close(out.cpu(), expected)
    torch.testing.assert_close(dn.cpu(), data)  # the functional form leaves self alone
    res = torch_npu.scatter_update_(dn, indices.int().npu(), updates.npu(), -2)
    assert res.data_ptr() == dn.data_ptr()
    torch.testing.assert_close(dn.cpu(), expected)


# --- each op is its aclnn kernel ---------------------------------------------------------------

def _launch_cases():
    x, g = rand(2, 8), rand(8, seed=1)
    r = rand(1, 8, seed=2)
    yield "npu_add_rms_norm", "aclnnAddRmsNorm", lambda: torch_npu.npu_add_rms_norm(x.npu(), x.npu(), g.npu())
    yield "npu_rotary_mul", "aclnnRotaryPositionEmbedding", lambda: torch_npu.npu_rotary_mul(x.npu(), r.npu(), r.npu())
    yield ("npu_rotary_mul_backward", "aclnnRotaryPositionEmbeddingGrad",
           lambda: torch.ops.npu.npu_rotary_mul_backward(x.npu(), x.npu(), r.npu(), r.npu()))
    yield ("npu_apply_rotary_pos_emb", "aclnnApplyRotaryPosEmb",
           lambda: torch_npu.npu_apply_rotary_pos_emb(x.view(1, 2, 1, 8).npu(), x.view(1, 2, 1, 8).npu(),
                                                      r.view(1, 1, 1, 8).npu(), r.view(1, 1, 1, 8).npu()))
    yield "npu_swiglu", "aclnnSwiGlu", lambda: torch_npu.npu_swiglu(x.npu())
    yield "npu_swiglu_backward", "aclnnSwiGluGrad", lambda: torch.ops.npu.npu_swiglu_backward(
        rand(2, 4).npu(), x.npu())
    yield "npu_scaled_masked_softmax", "aclnnScaledMaskedSoftmax", lambda: torch_npu.npu_scaled_masked_softmax(
        x.view(1, 1, 2, 8).npu(), torch.zeros(1, 1, 2, 8, dtype=torch.bool).npu())
    yield ("npu_scaled_masked_softmax_backward", "aclnnScaledMaskedSoftmaxBackward",
           lambda: torch.ops.npu.npu_scaled_masked_softmax_backward(
               x.view(1, 1, 2, 8).npu(), x.view(1, 1, 2, 8).npu(), torch.zeros(1, 1, 2, 8, dtype=torch.bool).npu(),
               1.0, False))
    yield "npu_moe_gating_top_k_softmax", "aclnnMoeGatingTopKSoftmax", lambda: (
        torch_npu.npu_moe_gating_top_k_softmax(x.npu(), k=2))
    yield "scatter_update", "aclnnInplaceScatterUpdate", lambda: torch_npu.scatter_update(
        x.view(2, 1, 8, 1).npu(), torch.tensor([0, 3]).npu(), rand(2, 1, 2, 1).npu(), -2)
    q = rand(1, 3, 16)
    yield "npu_prompt_flash_attention", "aclnnFlashAttentionScore", lambda: torch_npu.npu_prompt_flash_attention(
        q.npu(), q.npu(), q.npu(), num_heads=2)
    yield "npu_incre_flash_attention", "aclnnFlashAttentionScore", lambda: torch_npu.npu_incre_flash_attention(
        q[:, :1].npu(), q.npu(), q.npu(), num_heads=2)


@pytest.mark.parametrize("name,aclnn,call", list(_launch_cases()), ids=[c[0] for c in _launch_cases()])
def test_each_op_launches_its_aclnn_op_once(name, aclnn, call):
    before = launched(aclnn)
    call()
    torch.npu.synchronize()
    assert launched(aclnn) == before + 1, name


def test_grouped_matmul_list_overload_takes_int_group_list():
    x, w = rand(6, 4), rand(2, 4, 3, seed=1)
    ys = torch.ops.npu.npu_grouped_matmul.List([x.npu()], [w[0].npu(), w[1].npu()], group_list=[2, 6], split_item=0)
    assert len(ys) == 2
    close(ys[0], x[:2] @ w[0], torch.float32)
    close(ys[1], x[2:] @ w[1], torch.float32)
