"""CANN's training entries the real torch_npu launches and npu-emu's own
backend does not (aclnnMaxPool2dWithMask(+Backward), aclnnFlashAttentionScore
(+Grad), aclnnApplyAdamWV2), called through the ACL C API as torch_npu calls
them and compared with PyTorch CPU computing the same thing."""

from __future__ import annotations

import ctypes
import math
from typing import Any

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from test_inplace_ops import ACL_DTYPE, ACL_FORMAT_ND, LIB, Args

ACL_DTYPE = {**ACL_DTYPE, torch.int8: 2, torch.uint8: 4, torch.float16: 1, torch.bfloat16: 27}
LIB.aclCreateIntArray.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64]
LIB.aclCreateIntArray.restype = ctypes.c_void_p
LIB.aclDestroyIntArray.argtypes = [ctypes.c_void_p]


class Call(Args):
    """Args that also make aclIntArrays and take any tensor dtype."""

    def __init__(self) -> None:
        super().__init__()
        self.arrays: list[int] = []

    def tensor(self, t: torch.Tensor | None) -> ctypes.c_void_p:
        if t is None:
            return ctypes.c_void_p(None)
        dims = (ctypes.c_int64 * t.dim())(*t.shape)
        strides = (ctypes.c_int64 * t.dim())(*t.stride())
        storage = (ctypes.c_int64 * 1)(t.untyped_storage().nbytes() // t.element_size())
        handle = LIB.aclCreateTensor(dims, t.dim(), ACL_DTYPE[t.dtype], strides, t.storage_offset(), ACL_FORMAT_ND,
                                     storage, 1, ctypes.c_void_p(t.untyped_storage().data_ptr()))
        assert handle
        self.tensors.append(handle)
        self.keep.append(t)  # its memory must outlive the call
        return ctypes.c_void_p(handle)

    def ints(self, values: list[int]) -> ctypes.c_void_p:
        box = (ctypes.c_int64 * max(len(values), 1))(*values)
        self.keep.append(box)
        handle = LIB.aclCreateIntArray(box, len(values))
        assert handle
        self.arrays.append(handle)
        return ctypes.c_void_p(handle)

    def release(self) -> None:
        super().release()
        for h in self.arrays:
            LIB.aclDestroyIntArray(ctypes.c_void_p(h))


def status_of(name: str, args: list[Any]) -> tuple[int, str]:
    """GetWorkspaceSize, then (if it succeeded) the launch and a synchronize."""
    torch.npu.synchronize()
    workspace, executor = ctypes.c_uint64(0), ctypes.c_void_p(None)
    status = getattr(LIB, f"{name}GetWorkspaceSize")(*args, ctypes.byref(workspace), ctypes.byref(executor))
    if status != 0:
        return status, (LIB.aclGetRecentErrMsg() or b"").decode()
    assert getattr(LIB, name)(None, workspace, executor, None) == 0
    assert LIB.aclrtSynchronizeDevice() == 0
    return 0, ""


def run(name: str, args: list[Any]) -> None:
    status, message = status_of(name, args)
    assert status == 0, f"{name}GetWorkspaceSize returned {status}: {message}"


# ---------------------------------------------------------------- max pooling

def mask_shape(pooled: torch.Size, kernel: tuple[int, int]) -> list[int]:
    outputs = pooled[-2] * pooled[-1]
    return [*pooled[:-2], kernel[0] * kernel[1], (math.ceil(outputs / 16) + 1) * 32]


POOLS = [  # (input shape, kernel, stride, padding, ceil_mode, channels_last)
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0), False, False),
    ((2, 3, 9, 7), (3, 3), (2, 2), (1, 1), True, False),
    ((3, 7, 6), (3, 2), (1, 2), (1, 0), False, False),
    ((2, 4, 6, 6), (2, 2), (1, 1), (0, 0), False, True),
]


@pytest.mark.parametrize("shape,kernel,stride,padding,ceil_mode,channels_last", POOLS)
def test_max_pool2d_with_mask_and_its_backward_match_cpu(shape, kernel, stride, padding, ceil_mode, channels_last):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g)
    expected, indices = F.max_pool2d(x, kernel, stride, padding, 1, ceil_mode, return_indices=True)
    grad_out = torch.randn(expected.shape, generator=g)
    expected_grad = torch.ops.aten.max_pool2d_with_indices_backward(grad_out, x, kernel, stride, padding, [1, 1],
                                                                   ceil_mode, indices)

    xn = x.to("npu")
    if channels_last:
        xn = xn.contiguous(memory_format=torch.channels_last)
    out = torch.full(expected.shape, -7.0, device="npu")
    mask = torch.full(mask_shape(expected.shape, kernel), 5, dtype=torch.int8, device="npu")
    grad_in = torch.full(shape, -7.0, device="npu")
    c = Call()
    try:
        lists = [c.ints(list(kernel)), c.ints(list(stride)), c.ints(list(padding)), c.ints([1, 1])]
        run("aclnnMaxPool2dWithMask", [c.tensor(xn), *lists, ctypes.c_bool(ceil_mode), c.tensor(out), c.tensor(mask)])
        run("aclnnMaxPool2dWithMaskBackward", [c.tensor(grad_out.to("npu")), c.tensor(xn), c.tensor(mask), *lists,
                                               ctypes.c_bool(ceil_mode), c.tensor(grad_in)])
    finally:
        c.release()
    assert torch.equal(out.cpu(), expected)
    assert torch.equal(grad_in.cpu(), expected_grad)
    # The mask: one marked kernel element per output, nothing beyond the outputs.
    m = mask.cpu().flatten(0, -3) if mask.dim() > 3 else mask.cpu()
    outputs = expected.shape[-2] * expected.shape[-1]
    assert torch.equal(m[..., :outputs].sum(-2), torch.ones(m.shape[0], outputs, dtype=torch.int64))
    assert not m[..., outputs:].any()


def test_max_pool2d_with_mask_refuses_a_mask_of_another_shape():
    x = torch.randn(1, 2, 4, 4, device="npu")
    out = torch.empty(1, 2, 2, 2, device="npu")
    c = Call()
    try:
        for indices in (torch.empty(1, 2, 2, 2, dtype=torch.int64, device="npu"),  # aclnnMaxPool2dWithIndices' form
                        torch.empty(1, 2, 4, 32, dtype=torch.int8, device="npu")):  # one block short
            status, message = status_of("aclnnMaxPool2dWithMask", [
                c.tensor(x), c.ints([2, 2]), c.ints([2, 2]), c.ints([0, 0]), c.ints([1, 1]), ctypes.c_bool(False),
                c.tensor(out), c.tensor(indices)])
            assert status != 0 and "indices" in message
    finally:
        c.release()


# ------------------------------------------------------------ flash attention

def to_layout(t: torch.Tensor, layout: str) -> torch.Tensor:
    """[B, N, S, D] -> the layout's shape (a contiguous tensor)."""
    b, n, s, d = t.shape
    if layout == "BNSD":
        return t.contiguous()
    if layout == "BSND":
        return t.transpose(1, 2).contiguous()
    if layout == "BSH":
        return t.transpose(1, 2).reshape(b, s, n * d).contiguous()
    return t.permute(2, 0, 1, 3).reshape(s, b, n * d).contiguous()  # SBH


def from_layout(t: torch.Tensor, layout: str, heads: int) -> torch.Tensor:
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, heads, h // heads).transpose(1, 2)
    s, b, h = t.shape
    return t.reshape(s, b, heads, h // heads).permute(1, 2, 0, 3)


def flash(q, k, v, dy, layout: str, heads: int, scale: float, mask, sparse_mode: int, pre: int, nxt: int,
          keep_prob: float = 1.0):
    """Forward and grad through the C entries; returns (out, softmax_max, softmax_sum, dq, dk, dv) or the
    forward's (status, message) when it refuses."""
    b, s1 = q.shape[0], q.shape[2]
    dev = [to_layout(t, layout).to("npu") for t in (q, k, v, dy)]
    out = torch.full(to_layout(torch.empty(q.shape[:3] + (v.shape[3],)), layout).shape, -7.0, device="npu")
    smax = torch.full((b, heads, s1, 8), -7.0, device="npu")
    ssum = torch.full((b, heads, s1, 8), -7.0, device="npu")
    empty = torch.empty(0, device="npu")
    grads = [torch.full(t.shape, -7.0, device="npu") for t in dev[:3]]
    mask_n = None if mask is None else mask.to("npu")
    layout_c = ctypes.c_char_p(layout.encode())
    c = Call()
    try:
        status, message = status_of("aclnnFlashAttentionScore", [
            c.tensor(dev[0]), c.tensor(dev[1]), c.tensor(dev[2]), c.tensor(None), c.tensor(None), c.tensor(None),
            c.tensor(mask_n), c.ints([]), ctypes.c_double(scale), ctypes.c_double(keep_prob), ctypes.c_int64(pre),
            ctypes.c_int64(nxt), ctypes.c_int64(heads), layout_c, ctypes.c_int64(0), ctypes.c_int64(sparse_mode),
            c.tensor(smax), c.tensor(ssum), c.tensor(empty), c.tensor(out)])
        if status != 0:
            return status, message
        run("aclnnFlashAttentionScoreGrad", [
            c.tensor(dev[0]), c.tensor(dev[1]), c.tensor(dev[2]), c.tensor(dev[3]), c.tensor(None), c.tensor(None),
            c.tensor(None), c.tensor(mask_n), c.tensor(smax), c.tensor(ssum), c.tensor(None), c.tensor(out),
            c.ints([]), ctypes.c_double(scale), ctypes.c_double(keep_prob), ctypes.c_int64(pre), ctypes.c_int64(nxt),
            ctypes.c_int64(heads), layout_c, ctypes.c_int64(0), ctypes.c_int64(sparse_mode),
            c.tensor(grads[0]), c.tensor(grads[1]), c.tensor(grads[2]), c.tensor(empty)])
    finally:
        c.release()
    kv_heads = k.shape[1]
    return (from_layout(out.cpu(), layout, heads), smax.cpu(), ssum.cpu(),
            from_layout(grads[0].cpu(), layout, heads), from_layout(grads[1].cpu(), layout, kv_heads),
            from_layout(grads[2].cpu(), layout, kv_heads))


TOKENS = 2147483647
ATTENTION = [  # (layout, kv heads, S2, sparse mode, mask kind)
    ("BNSD", 2, 6, 0, None),
    ("BSND", 2, 7, 0, "bool"),
    ("BSH", 1, 6, 2, None),  # grouped-query attention, top-left causal
    ("SBH", 2, 8, 3, None),  # bottom-right causal with S2 > S1
    ("BNSD", 2, 6, 1, "uint8"),
]


@pytest.mark.parametrize("layout,kv_heads,s2,sparse_mode,mask_kind", ATTENTION)
def test_flash_attention_score_and_grad_match_cpu_attention(layout, kv_heads, s2, sparse_mode, mask_kind):
    g = torch.Generator().manual_seed(3)
    b, heads, s1, d = 2, 2, 6, 8
    q = torch.randn(b, heads, s1, d, generator=g, dtype=torch.float64)
    k = torch.randn(b, kv_heads, s2, d, generator=g, dtype=torch.float64)
    v = torch.randn(b, kv_heads, s2, d, generator=g, dtype=torch.float64)
    dy = torch.randn(b, heads, s1, d, generator=g, dtype=torch.float64)
    scale = 0.3
    masked = torch.zeros(s1, s2, dtype=torch.bool)  # True = masked out, CANN's convention
    if mask_kind is not None:
        masked = torch.rand(b, 1, s1, s2, generator=g) < 0.3
        masked[..., 0] = False  # no fully masked row
    if sparse_mode == 2:
        masked = torch.ones(s1, s2, dtype=torch.bool).triu(1)
    if sparse_mode == 3:
        masked = torch.ones(s1, s2, dtype=torch.bool).triu(1 + s2 - s1)
    # The reference, in float64.
    qr, kr, vr = (t.clone().requires_grad_() for t in (q, k, v))
    rep = heads // kv_heads
    scores = scale * qr @ kr.repeat_interleave(rep, 1).transpose(-1, -2)
    scores = scores.masked_fill(masked, -math.inf)
    expected = torch.softmax(scores, -1) @ vr.repeat_interleave(rep, 1)
    expected.backward(dy)
    lse = torch.logsumexp(scores.detach(), -1)

    mask = None
    if mask_kind is not None:
        mask = masked.to(torch.uint8 if mask_kind == "uint8" else torch.bool)
    elif sparse_mode in (2, 3):
        mask = torch.ones(2048, 2048, dtype=torch.bool).triu(1)  # CANN's compressed mask: implied by the mode
    f32 = [t.float() for t in (q, k, v, dy)]
    out, smax, ssum, dq, dk, dv = flash(*f32, layout, heads, scale, mask, sparse_mode, TOKENS, TOKENS)
    tol = {"rtol": 1e-4, "atol": 1e-5}
    torch.testing.assert_close(out, expected.detach().float(), **tol)
    torch.testing.assert_close(dq, qr.grad.float(), **tol)
    torch.testing.assert_close(dk, kr.grad.float(), **tol)
    torch.testing.assert_close(dv, vr.grad.float(), **tol)
    # (max, sum): exp(score - max) / sum is the softmax; 8 equal lanes per row.
    assert torch.equal(smax, smax[..., :1].expand_as(smax)) and torch.equal(ssum, ssum[..., :1].expand_as(ssum))
    torch.testing.assert_close(smax[..., 0] + ssum[..., 0].log(), lse.float(), **tol)


def test_flash_attention_score_refuses_what_it_does_not_emulate():
    q = torch.randn(1, 2, 4, 8)
    for kwargs, named in (({"keep_prob": 0.9}, "dropMaskOptional"), ({"sparse_mode": 5}, "sparseMode"),
                          ({"layout": "TND"}, "inputLayout")):
        args = {"layout": "BNSD", "sparse_mode": 0, "keep_prob": 1.0, **kwargs}
        result = flash(q, q, q, q, args["layout"], 2, 1.0, None, args["sparse_mode"], TOKENS, TOKENS,
                       args["keep_prob"])
        status, message = result[0], result[1]
        assert status != 0 and named in message, (kwargs, message)


# ------------------------------------------------------------------- AdamW

@pytest.mark.parametrize("amsgrad,maximize,step_dtype", [(False, False, torch.int64), (True, False, torch.float32),
                                                         (False, True, torch.int64)])
def test_apply_adamw_v2_steps_as_torch_adamw(amsgrad, maximize, step_dtype):
    g = torch.Generator().manual_seed(5)
    param = torch.randn(3, 5, generator=g)
    grads = [torch.randn(3, 5, generator=g) for _ in range(3)]
    options = {"lr": 0.05, "betas": (0.8, 0.95), "weight_decay": 0.1, "eps": 1e-6, "amsgrad": amsgrad,
               "maximize": maximize}
    reference = param.clone().requires_grad_()
    optimizer = torch.optim.AdamW([reference], foreach=False, **options)

    var = param.to("npu").t().contiguous().t()  # a strided parameter
    m, v, vmax = (torch.zeros(3, 5, device="npu") for _ in range(3))
    for i, grad in enumerate(grads):
        reference.grad = grad
        optimizer.step()
        # CANN's step: the steps taken before this one (torch_npu passes PyTorch's count minus 1).
        step = torch.tensor([i], dtype=step_dtype, device="npu")
        c = Call()
        try:
            run("aclnnApplyAdamWV2", [
                c.tensor(var), c.tensor(m), c.tensor(v), c.tensor(vmax if amsgrad else None), c.tensor(grad.to("npu")),
                c.tensor(step), *(ctypes.c_float(x) for x in (0.05, 0.8, 0.95, 0.1, 1e-6)),
                ctypes.c_bool(amsgrad), ctypes.c_bool(maximize)])
        finally:
            c.release()
        state = optimizer.state[reference]
        # The hyper-parameters arrive as float (CANN's), PyTorch's CPU step uses double.
        torch.testing.assert_close(var.cpu(), reference.detach(), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(m.cpu(), state["exp_avg"], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(v.cpu(), state["exp_avg_sq"], rtol=1e-5, atol=1e-6)
        if amsgrad:
            torch.testing.assert_close(vmax.cpu(), state["max_exp_avg_sq"], rtol=1e-5, atol=1e-6)


def test_apply_adamw_v2_needs_its_max_state_with_amsgrad():
    var = torch.zeros(4, device="npu")
    c = Call()
    try:
        status, message = status_of("aclnnApplyAdamWV2", [
            c.tensor(var), c.tensor(var.clone()), c.tensor(var.clone()), c.tensor(None), c.tensor(var.clone()),
            c.tensor(torch.zeros(1, dtype=torch.int64, device="npu")),
            *(ctypes.c_float(x) for x in (0.1, 0.9, 0.99, 0.0, 1e-8)), ctypes.c_bool(True), ctypes.c_bool(False)])
    finally:
        c.release()
    assert status != 0 and "maxGradNormOptionalRef" in message


# ------------------------------------------------------------------- GELU

def test_gelu_backward_is_the_erf_form_gradient():
    # What torch_npu launches for gelu_backward (approximate="none") on Atlas A2/A3.
    g = torch.Generator().manual_seed(7)
    x = torch.randn(5, 7, generator=g, dtype=torch.float64) * 3
    dy = torch.randn(5, 7, generator=g, dtype=torch.float64)
    expected = torch.ops.aten.gelu_backward(dy, x, approximate="none")
    grad_in = torch.full((5, 7), -7.0, device="npu")
    c = Call()
    try:
        run("aclnnGeluBackward", [c.tensor(dy.float().to("npu")), c.tensor(x.float().to("npu")), c.tensor(grad_in)])
    finally:
        c.release()
    torch.testing.assert_close(grad_in.cpu(), expected.float(), rtol=1e-5, atol=1e-6)
