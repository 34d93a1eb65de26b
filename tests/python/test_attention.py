"""scaled_dot_product_attention on npu runs as one fused aclnn op forward
(aclnnNpuFusedAttention) and one backward, chosen by the npu's SDPA choice;
what the fused op does not cover takes PyTorch's math path on native ops.
Every test forbids the CPU fallback (native_only) and compares with CPU."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401
from npu_emu import debug

pytestmark = pytest.mark.usefixtures("native_only")

FUSED = "aclnnNpuFusedAttention"
FUSED_BACKWARD = "aclnnNpuFusedAttentionBackward"


def _launches() -> dict[str, int]:
    report = debug.native_report()
    return {op: report.get(op, 0) for op in (FUSED, FUSED_BACKWARD)}


def _inputs(shape_q, shape_k, shape_v, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in (shape_q, shape_k, shape_v)]


def _run(device, q, k, v, grad, **kwargs):
    """Output and (q, k, v) gradients of SDPA on `device`."""
    leaves = [t.detach().clone().to(device).requires_grad_() for t in (q, k, v)]
    kw = {n: (a.to(device) if isinstance(a, torch.Tensor) else a) for n, a in kwargs.items()}
    out = F.scaled_dot_product_attention(*leaves, **kw)
    out.backward(grad.to(device))
    return out.detach().cpu(), [t.grad.cpu() for t in leaves]


# (query, key, value shapes, keyword arguments)
CASES = {
    "plain": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {}),
    "causal": ((2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 8), {"is_causal": True}),
    "causal-longer-keys": ((2, 2, 4, 8), (2, 2, 9, 8), (2, 2, 9, 8), {"is_causal": True}),
    "causal-shorter-keys": ((1, 2, 9, 8), (1, 2, 4, 8), (1, 2, 4, 8), {"is_causal": True}),
    "scale": ((2, 2, 5, 8), (2, 2, 5, 8), (2, 2, 5, 8), {"scale": 0.37}),
    "value-head-dim": ((2, 2, 5, 8), (2, 2, 7, 8), (2, 2, 7, 3), {}),
    "gqa": ((2, 6, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8), {"enable_gqa": True}),
    "gqa-causal": ((1, 4, 6, 4), (1, 1, 6, 4), (1, 1, 6, 4), {"enable_gqa": True, "is_causal": True}),
    "3-d": ((3, 5, 8), (3, 7, 8), (3, 7, 8), {}),
    "long-rows": ((1, 2, 150, 16), (1, 2, 130, 16), (1, 2, 130, 16), {"is_causal": True}),  # several row blocks
}
MASKS = {
    "float-mask-full": lambda g: torch.randn(2, 3, 5, 7, generator=g),
    "float-mask-broadcast": lambda g: torch.randn(5, 7, generator=g),
    "float-mask-per-batch": lambda g: torch.randn(2, 1, 1, 7, generator=g),
    "bool-mask-broadcast": lambda g: torch.rand(1, 3, 5, 7, generator=g) > 0.4,
    "gqa-float-mask": lambda g: torch.randn(1, 1, 5, 7, generator=g),
    "bool-mask-with-fully-masked-row": lambda g: torch.tensor([True] * 7 + [False] * 7 + [True, False] * 10 + [True])
    .view(5, 7),
}


def _check(q, k, v, atol=1e-5, rtol=1e-4, **kwargs):
    g = torch.Generator().manual_seed(7)
    grad_shape = q.shape[:-1] + (v.shape[-1],)
    grad = torch.randn(grad_shape, generator=g, dtype=torch.float64).to(q.dtype)
    debug.reset_reports()
    out, grads = _run("npu", q, k, v, grad, **kwargs)
    launched = _launches()
    ref_out, ref_grads = _run("cpu", q, k, v, grad, **kwargs)
    torch.testing.assert_close(out, ref_out, atol=atol, rtol=rtol)
    for name, a, b in zip("qkv", grads, ref_grads):
        torch.testing.assert_close(a, b, atol=atol, rtol=rtol, msg=lambda m: f"grad of {name}: {m}")
    return launched


@pytest.mark.parametrize("case", list(CASES))
def test_fused_attention_matches_cpu(case):
    sq, sk, sv, kwargs = CASES[case]
    launched = _check(*_inputs(sq, sk, sv), **kwargs)
    assert launched == {FUSED: 1, FUSED_BACKWARD: 1}


@pytest.mark.parametrize("mask", list(MASKS))
def test_fused_attention_with_mask_matches_cpu(mask):
    gqa = mask.startswith("gqa")
    kv_heads = 1 if gqa else 3
    q, k, v = _inputs((2, 3, 5, 8), (2, kv_heads, 7, 8), (2, kv_heads, 7, 8))
    attn_mask = MASKS[mask](torch.Generator().manual_seed(3))
    launched = _check(q, k, v, attn_mask=attn_mask, **({"enable_gqa": True} if gqa else {}))
    assert launched == {FUSED: 1, FUSED_BACKWARD: 1}


def test_fully_masked_row_gives_zero_output_and_gradients():
    # The mathematical value (PyTorch's math path gives the same): a query
    # that may attend to nothing contributes nothing.
    q, k, v = _inputs((1, 1, 3, 4), (1, 1, 5, 4), (1, 1, 5, 4))
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    qn, kn, vn = [t.to("npu").requires_grad_() for t in (q, k, v)]
    out = F.scaled_dot_product_attention(qn, kn, vn, attn_mask=mask.to("npu"))
    out.sum().backward()
    assert torch.equal(out[0, 0, 1].cpu(), torch.zeros(4))
    assert torch.equal(qn.grad[0, 0, 1].cpu(), torch.zeros(4))
    assert torch.isfinite(kn.grad.cpu()).all() and torch.isfinite(vn.grad.cpu()).all()


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)])
@pytest.mark.parametrize("case", ["plain", "causal", "gqa", "value-head-dim"])
def test_reduced_precision_computes_in_float32(case, dtype, tol):
    # Reference: CPU's SDPA in float32 on the same (rounded) inputs; the npu
    # computes in float32 and rounds once, so it stays within one or two ulps.
    sq, sk, sv, kwargs = CASES[case]
    q, k, v = _inputs(sq, sk, sv, dtype=dtype)
    grad = torch.randn(sq[:-1] + (sv[-1],), generator=torch.Generator().manual_seed(1)).to(dtype)
    debug.reset_reports()
    out, grads = _run("npu", q, k, v, grad, **kwargs)
    assert _launches() == {FUSED: 1, FUSED_BACKWARD: 1}
    ref_out, ref_grads = _run("cpu", q.float(), k.float(), v.float(), grad.float(), **kwargs)
    assert out.dtype == dtype and all(g.dtype == dtype for g in grads)
    torch.testing.assert_close(out.float(), ref_out, atol=tol, rtol=tol)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a.float(), b, atol=4 * tol, rtol=4 * tol)


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"enable_gqa": True}, {"attn_mask": "float"}],
                         ids=["plain", "causal", "gqa", "mask"])
def test_gradcheck_float64(kwargs):
    g = torch.Generator().manual_seed(5)
    heads_kv = 1 if kwargs.get("enable_gqa") else 2
    q = torch.randn(1, 2, 3, 4, generator=g, dtype=torch.float64)
    k = torch.randn(1, heads_kv, 4, 4, generator=g, dtype=torch.float64)
    v = torch.randn(1, heads_kv, 4, 3, generator=g, dtype=torch.float64)
    if kwargs.get("attn_mask") == "float":
        kwargs = {"attn_mask": torch.randn(3, 4, generator=g, dtype=torch.float64).to("npu")}
    leaves = [t.to("npu").requires_grad_() for t in (q, k, v)]
    debug.reset_reports()
    assert torch.autograd.gradcheck(lambda *t: F.scaled_dot_product_attention(*t, **kwargs), leaves)
    launched = _launches()
    assert launched[FUSED] > 0 and launched[FUSED_BACKWARD] > 0


def _dropout_mask(shape_q, s, p, seed):
    """The keep mask a seeded fused launch of this score shape draws: with
    value = identity, out[..., i, j] = P_ij * keep_ij / (1 - p) > 0 exactly when kept."""
    q = torch.zeros(shape_q, device="npu")
    k = torch.zeros(shape_q[:-2] + (s, shape_q[-1]), device="npu")
    v = torch.eye(s, device="npu").expand(shape_q[:-2] + (s, s))
    torch.npu.manual_seed(seed)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
    kept = out.cpu() > 0
    torch.testing.assert_close(out.cpu()[kept], torch.full((int(kept.sum()),), 1 / (s * (1 - p))))
    return kept


def test_dropout_statistics():
    p = 0.3
    kept = _dropout_mask((4, 4, 64, 8), 64, p, seed=11)
    fraction_dropped = 1 - kept.float().mean().item()
    # 65536 Bernoulli draws: the standard deviation of the fraction is 0.0018.
    assert abs(fraction_dropped - p) < 0.01
    # Different rows and heads draw different masks.
    assert not torch.equal(kept[0, 0], kept[0, 1]) and not torch.equal(kept[0, 0, 0], kept[0, 0, 1])


@pytest.mark.parametrize("kv_heads,kwargs", [(3, {}), (1, {"enable_gqa": True, "is_causal": True})],
                         ids=["plain", "gqa-causal"])
def test_dropout_same_seed_same_result_and_backward_uses_forward_mask(kv_heads, kwargs):
    p = 0.25
    shape_q, s = (2, 3, 5, 8), 7
    q, k, v = _inputs(shape_q, (2, kv_heads, s, 8), (2, kv_heads, s, 6))
    grad = torch.randn(2, 3, 5, 6, generator=torch.Generator().manual_seed(2))
    kept = _dropout_mask(shape_q, s, p, seed=21)
    results = []
    for _ in range(2):
        torch.npu.manual_seed(21)
        debug.reset_reports()
        results.append(_run("npu", q, k, v, grad, dropout_p=p, **kwargs))
        assert _launches() == {FUSED: 1, FUSED_BACKWARD: 1}
    (out, grads), (out2, grads2) = results
    assert torch.equal(out, out2) and all(torch.equal(a, b) for a, b in zip(grads, grads2))
    # CPU's math path with the same mask gives the same output and gradients.
    leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    ref = torch.ops.aten._scaled_dot_product_attention_math(*leaves, dropout_p=p, dropout_mask=kept, **kwargs)[0]
    ref.backward(grad)
    torch.testing.assert_close(out, ref.detach(), atol=1e-5, rtol=1e-4)
    for a, b in zip(grads, leaves):
        torch.testing.assert_close(a, b.grad, atol=1e-5, rtol=1e-4)


def test_dropout_advances_the_generator():
    q, k, v = _inputs((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8))
    qn, kn, vn = (t.to("npu") for t in (q, k, v))
    torch.npu.manual_seed(3)
    first = F.scaled_dot_product_attention(qn, kn, vn, dropout_p=0.5).cpu()
    second = F.scaled_dot_product_attention(qn, kn, vn, dropout_p=0.5).cpu()
    assert not torch.equal(first, second)


UNFUSED = {
    # mask needing a gradient: the fused backward computes none
    "mask-requires-grad": lambda: {"attn_mask": torch.randn(5, 7).requires_grad_()},
    # 5-D operands
    "5-d": lambda: {"shapes": ((2, 2, 3, 5, 8), (2, 2, 3, 7, 8), (2, 2, 3, 7, 8))},
}


@pytest.mark.parametrize("case", list(UNFUSED))
def test_what_the_fused_op_lacks_takes_the_math_path(case):
    kwargs = UNFUSED[case]()
    shapes = kwargs.pop("shapes", ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8)))
    q, k, v = _inputs(*shapes)
    grad = torch.randn(shapes[0], generator=torch.Generator().manual_seed(4))
    mask = kwargs.get("attn_mask")
    results = {}
    debug.reset_reports()
    for device in ("npu", "cpu"):
        leaves = [t.detach().clone().to(device).requires_grad_() for t in (q, k, v)]
        kw = dict(kwargs)
        if mask is not None:
            kw["attn_mask"] = mask.detach().clone().to(device).requires_grad_()
        out = F.scaled_dot_product_attention(*leaves, **kw)
        out.backward(grad.to(device))
        extra = [kw["attn_mask"].grad.cpu()] if mask is not None else []
        results[device] = [out.detach().cpu()] + [t.grad.cpu() for t in leaves] + extra
        if device == "npu":
            assert _launches() == {FUSED: 0, FUSED_BACKWARD: 0}
    for a, b in zip(results["npu"], results["cpu"]):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


def test_fused_sdp_choice_operator_answers_for_npu():
    q, k, v = (t.to("npu") for t in _inputs((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8)))
    assert torch._fused_sdp_choice(q, k, v) == SDPBackend.OVERRIDEABLE.value
    assert torch._fused_sdp_choice(q, k, v, attn_mask=torch.zeros(4, 4, device="npu", requires_grad=True)) == \
        SDPBackend.MATH.value
    with torch.nn.attention.sdpa_kernel(SDPBackend.MATH):
        assert torch._fused_sdp_choice(q, k, v) == SDPBackend.MATH.value


def test_sdpa_kernel_math_context_is_respected():
    q, k, v = (t.to("npu") for t in _inputs((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8)))
    debug.reset_reports()
    with torch.nn.attention.sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v)
    assert _launches()[FUSED] == 0
    torch.testing.assert_close(out.cpu(), F.scaled_dot_product_attention(*(t.cpu() for t in (q, k, v))))


def _module_step(module_cpu, inputs_cpu, call):
    module_npu = copy.deepcopy(module_cpu).to("npu")
    results = {}
    for device, module in (("cpu", module_cpu), ("npu", module_npu)):
        inputs = [t.detach().clone().to(device).requires_grad_() for t in inputs_cpu]
        out = call(module, *inputs)
        (out * torch.linspace(-1, 1, out.numel(), device=device).view(out.shape)).sum().backward()
        results[device] = ([out.detach().cpu()] + [t.grad.cpu() for t in inputs]
                           + [p.grad.cpu() for p in module.parameters()])
    for a, b in zip(results["npu"], results["cpu"]):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("need_weights", [False, True])
def test_multihead_attention_forward_backward(need_weights):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4, batch_first=True)
    g = torch.Generator().manual_seed(1)
    mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    debug.reset_reports()
    _module_step(mha, [torch.randn(3, 5, 16, generator=g)],
                 lambda m, x: m(x, x, x, attn_mask=mask.to(x.device), need_weights=need_weights)[0])
    if not need_weights:  # with weights PyTorch composes bmm and softmax itself
        assert _launches() == {FUSED: 1, FUSED_BACKWARD: 1}


def test_transformer_encoder_layer_forward_backward():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True)
    g = torch.Generator().manual_seed(1)
    debug.reset_reports()
    _module_step(layer, [torch.randn(3, 6, 16, generator=g)],
                 lambda m, x: m(x, is_causal=True, src_mask=nn.Transformer.generate_square_subsequent_mask(
                     6, device=x.device)))
    assert _launches() == {FUSED: 1, FUSED_BACKWARD: 1}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_safe_softmax_of_the_math_path(dtype):
    # Rows that are -inf throughout give 0 (the mathematical convention of
    # the math path), the others softmax; the gradient is softmax's.
    x = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0)).to(dtype)
    x[1, 2] = float("-inf")
    x[0, :, 3] = float("-inf")
    results = {}
    for device in ("cpu", "npu"):
        leaf = x.detach().clone().to(device).requires_grad_()
        out = torch._safe_softmax(leaf, -1)
        (out * torch.arange(out.numel(), device=device).view(out.shape).to(dtype)).sum().backward()
        results[device] = (out.detach().cpu(), leaf.grad.cpu())
    assert torch.equal(results["npu"][0][1, 2], torch.zeros(5, dtype=dtype))
    for a, b in zip(results["npu"], results["cpu"]):
        torch.testing.assert_close(a, b)


def test_direct_calls_with_bad_arguments_raise_clear_errors():
    q, k, v = (t.to("npu") for t in _inputs((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8)))
    op = torch.ops.aten._scaled_dot_product_fused_attention_overrideable
    with pytest.raises(RuntimeError, match="return_debug_mask=True is not supported on npu"):
        op(q, k, v, None, 0.0, False, True)
    with pytest.raises(RuntimeError, match="attn_bias must be additive in the query's dtype"):
        op(q, k, v, torch.zeros(4, 4, dtype=torch.bool, device="npu"))
    with pytest.raises(RuntimeError, match="key must be \\[B, Hk, S, E\\]"):
        op(q, k[..., :5], v)
    with pytest.raises(RuntimeError, match="must be a multiple of the key/value heads"):
        op(q[:, :1].expand(1, 3, 4, 8), k, v)
