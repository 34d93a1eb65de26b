"""Convolution on npu (aclnnConvolution / aclnnConvolutionBackward) against
PyTorch's CPU: F.conv*, conv_transpose*, nn modules and their autograd, with
the CPU fallback forbidden."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
import torch_npu

import npu_emu
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

# (function, input shape, weight shape, bias?, kwargs)
CASES = {
    "1d": (F.conv1d, (2, 4, 11), (6, 4, 3), True, {}),
    "1d stride pad dilation": (F.conv1d, (2, 4, 13), (6, 4, 3), True, dict(stride=2, padding=2, dilation=2)),
    "1d same groups": (F.conv1d, (2, 4, 9), (6, 2, 4), False, dict(padding="same", groups=2)),
    "2d": (F.conv2d, (2, 3, 8, 7), (5, 3, 3, 3), True, {}),
    "2d stride pad": (F.conv2d, (2, 4, 9, 8), (6, 4, 3, 2), True, dict(stride=(2, 1), padding=(1, 2))),
    "2d dilation no bias": (F.conv2d, (1, 3, 10, 9), (4, 3, 3, 3), False, dict(dilation=(2, 3))),
    "2d groups": (F.conv2d, (2, 6, 7, 7), (9, 2, 3, 3), True, dict(groups=3, padding=1)),
    "2d depthwise": (F.conv2d, (2, 5, 8, 8), (10, 1, 3, 3), True, dict(groups=5, stride=2, padding=1)),
    "2d 1x1": (F.conv2d, (3, 8, 5, 6), (4, 8, 1, 1), True, {}),
    "2d 1x1 stride 2": (F.conv2d, (2, 8, 7, 6), (4, 8, 1, 1), False, dict(stride=2)),
    "2d same": (F.conv2d, (2, 3, 7, 8), (4, 3, 4, 3), True, dict(padding="same", dilation=2)),
    "2d valid": (F.conv2d, (2, 3, 7, 8), (4, 3, 3, 3), True, dict(padding="valid")),
    # 48x48 = 2304 column positions per image: one GEMM per image (images of
    # fewer than 256 positions are put side by side into one GEMM over the batch).
    "2d large images": (F.conv2d, (2, 2, 48, 48), (3, 2, 3, 3), True, dict(padding=1)),
    "transposed 2d large images": (F.conv_transpose2d, (2, 2, 48, 48), (2, 3, 3, 3), True, {}),
    # Stride 1, dilation 1, one group: the shifted passes (no column matrix;
    # kernels/conv/conv_shifted.h) for the forward and the input gradient.
    "2d stride 1 asymmetric padding": (F.conv2d, (2, 5, 9, 11), (7, 5, 5, 3), True, dict(padding=(1, 2))),
    "2d stride 1 edge tiles": (F.conv2d, (3, 40, 10, 9), (37, 40, 3, 3), True, dict(padding=1)),
    "2d stride 1 long kernel rows": (F.conv2d, (1, 100, 6, 7), (33, 100, 3, 3), False, dict(padding=1)),
    "2d stride 1 7x7": (F.conv2d, (2, 3, 12, 12), (8, 3, 7, 7), True, dict(padding=3)),
    "2d stride 1 padding = kernel - 1": (F.conv2d, (2, 3, 6, 6), (4, 3, 2, 2), True, dict(padding=1)),
    "2d stride 1 padding > kernel - 1": (F.conv2d, (2, 3, 6, 6), (4, 3, 2, 2), True, dict(padding=2)),
    "1d stride 1 padding": (F.conv1d, (2, 6, 20), (5, 6, 5), True, dict(padding=2)),
    # Strided, dilation 1, one group: the forward reads the grid at strided pixels.
    "2d stem 7x7 stride 2": (F.conv2d, (2, 3, 15, 14), (8, 3, 7, 7), True, dict(stride=2, padding=3)),
    "1d stride 3": (F.conv1d, (2, 6, 21), (5, 6, 4), True, dict(stride=3, padding=1)),
    "3d": (F.conv3d, (2, 3, 5, 6, 4), (4, 3, 2, 3, 2), True, dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    "3d groups dilation": (F.conv3d, (1, 4, 6, 5, 5), (4, 2, 2, 2, 2), False, dict(groups=2, dilation=2)),
    "transposed 1d": (F.conv_transpose1d, (2, 4, 6), (4, 3, 3), True, dict(stride=3, output_padding=2)),
    "transposed 2d": (F.conv_transpose2d, (2, 4, 5, 6), (4, 3, 3, 2), True,
                      dict(stride=2, padding=1, output_padding=1)),
    "transposed 2d groups dilation": (F.conv_transpose2d, (2, 6, 4, 5), (6, 2, 3, 3), False,
                                      dict(groups=3, dilation=2, stride=(1, 2), output_padding=(0, 1))),
    "transposed 2d output_padding < dilation": (F.conv_transpose2d, (1, 2, 4, 4), (2, 3, 3, 3), True,
                                                dict(stride=1, dilation=2, output_padding=1)),
    "transposed 3d": (F.conv_transpose3d, (1, 4, 3, 4, 3), (4, 2, 2, 3, 2), True,
                      dict(stride=2, groups=2, output_padding=(1, 0, 1))),
}

# Sums over the kernel and channels: reduced floats round their inputs and
# the result, so tolerances follow their precision.
TOLERANCE = {
    torch.float32: dict(rtol=1e-4, atol=1e-4),
    torch.float64: dict(rtol=1e-10, atol=1e-10),
    torch.float16: dict(rtol=1e-2, atol=2e-2),
    torch.bfloat16: dict(rtol=4e-2, atol=1e-1),
}


def rand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def run_both(fn, x, w, b, kwargs, grad=True):
    """fn on CPU and on npu with the same leaves; returns (cpu out, npu out, cpu grads, npu grads)."""
    leaves = [t for t in (x, w, b) if t is not None]
    cpu = [t.clone().requires_grad_(grad) for t in leaves]
    dev = [t.npu().requires_grad_(grad) for t in leaves]

    def call(ts):
        it = iter(ts)
        return fn(next(it), next(it), next(it) if b is not None else None, **kwargs)

    out_c, out_n = call(cpu), call(dev)
    if not grad:
        return out_c, out_n, [], []
    g = rand(out_c.shape, out_c.dtype, 7)
    out_c.backward(g)
    out_n.backward(g.npu())
    return out_c, out_n, [t.grad for t in cpu], [t.grad for t in dev]


@pytest.mark.parametrize("dtype", TOLERANCE, ids=str)
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_forward_and_backward_match_cpu(case, dtype):
    fn, xs, ws, has_bias, kwargs = case
    x, w = rand(xs, dtype, 0), rand(ws, dtype, 1)
    out_channels = ws[1] * kwargs.get("groups", 1) if "transpose" in fn.__name__ else ws[0]
    b = rand((out_channels,), dtype, 2) if has_bias else None
    out_c, out_n, grads_c, grads_n = run_both(fn, x, w, b, kwargs)
    tol = TOLERANCE[dtype]
    assert out_n.dtype == dtype and out_n.shape == out_c.shape
    # Reduced floats: compare with the float64 result, which both approximate.
    ref = fn(x.double(), w.double(), b.double() if b is not None else None, **kwargs) if dtype in (
        torch.float16, torch.bfloat16) else out_c
    torch.testing.assert_close(out_n.cpu().double(), ref.double(), **tol)
    for gc, gn in zip(grads_c, grads_n):
        assert gn.shape == gc.shape and gn.dtype == dtype
        scale = max(1.0, gc.double().abs().max().item())
        torch.testing.assert_close(gn.cpu().double() / scale, gc.double() / scale, **tol)


def test_int64_forward_is_exact():
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-5, 5, (2, 3, 6, 5), generator=g)
    w = torch.randint(-5, 5, (4, 3, 2, 3), generator=g)
    b = torch.randint(-5, 5, (4,), generator=g)
    for kwargs in (dict(padding=1), dict(stride=2, groups=1)):
        assert torch.equal(F.conv2d(x.npu(), w.npu(), b.npu(), **kwargs).cpu(), F.conv2d(x, w, b, **kwargs))


def test_complex64_runs_through_real_convolutions():
    # PyTorch decomposes complex convolutions into real ones before the backend.
    x, w = rand((2, 3, 6, 6), torch.complex64, 0), rand((4, 3, 3, 3), torch.complex64, 1)
    torch.testing.assert_close(F.conv2d(x.npu(), w.npu(), padding=1).cpu(), F.conv2d(x, w, padding=1),
                               rtol=1e-4, atol=1e-4)


GRADCHECK = {
    "conv1d": (F.conv1d, (2, 4, 7), (4, 2, 3), dict(stride=2, padding=1, groups=2)),
    "conv2d": (F.conv2d, (2, 2, 5, 4), (3, 2, 3, 2), dict(padding=(1, 0), dilation=(1, 2))),
    "conv3d": (F.conv3d, (1, 2, 3, 4, 3), (2, 2, 2, 2, 2), dict(stride=(1, 2, 1))),
    "conv_transpose2d": (F.conv_transpose2d, (2, 2, 3, 4), (2, 3, 3, 3), dict(stride=2, output_padding=1)),
}


@pytest.mark.parametrize("case", GRADCHECK.values(), ids=GRADCHECK.keys())
def test_gradcheck_and_double_backward(case):
    fn, xs, ws, kwargs = case
    out_channels = ws[1] * kwargs.get("groups", 1) if "transpose" in fn.__name__ else ws[0]
    args = [rand(s, torch.float64, i).npu().requires_grad_() for i, s in enumerate((xs, ws, (out_channels,)))]
    f = lambda x, w, b: fn(x, w, b, **kwargs)  # noqa: E731
    assert torch.autograd.gradcheck(f, args)
    assert torch.autograd.gradgradcheck(f, args)


def test_zero_batch():
    x, w, b = rand((0, 3, 5, 5), torch.float32, 0), rand((4, 3, 3, 3), torch.float32, 1), rand((4,), torch.float32, 2)
    out_c, out_n, grads_c, grads_n = run_both(F.conv2d, x, w, b, dict(padding=1))
    assert out_n.shape == (0, 4, 5, 5)
    for gc, gn in zip(grads_c, grads_n):
        torch.testing.assert_close(gn.cpu(), gc)


@pytest.mark.parametrize("layout", ["channels_last", "sliced", "transposed weight"])
def test_non_contiguous_operands(layout):
    x, w, b = rand((2, 4, 9, 10), torch.float32, 0), rand((6, 4, 3, 3), torch.float32, 1), rand((6,), torch.float32, 2)
    if layout == "channels_last":
        prep_x = lambda t: t.contiguous(memory_format=torch.channels_last)  # noqa: E731
        prep_w = lambda t: t.contiguous(memory_format=torch.channels_last)  # noqa: E731
    elif layout == "sliced":
        prep_x = lambda t: t[:, :, 1::2, ::2]  # noqa: E731
        prep_w = lambda t: t  # noqa: E731
    else:
        prep_x = lambda t: t  # noqa: E731
        prep_w = lambda t: t.transpose(0, 1).contiguous().transpose(0, 1)  # noqa: E731
    xc, wc = prep_x(x), prep_w(w)
    xn, wn = prep_x(x.npu()), prep_w(w.npu())
    assert not xn.is_contiguous() or not wn.is_contiguous()
    xc.requires_grad_(), wc.requires_grad_(), xn.requires_grad_(), wn.requires_grad_()
    yc, yn = F.conv2d(xc, wc, b, padding=1), F.conv2d(xn, wn, b.npu(), padding=1)
    torch.testing.assert_close(yn.cpu(), yc, rtol=1e-4, atol=1e-4)
    # The output's memory format follows the input's, as on CPU.
    assert yn.is_contiguous(memory_format=torch.channels_last) == yc.is_contiguous(memory_format=torch.channels_last)
    g = rand(yc.shape, torch.float32, 3)
    yc.backward(g)
    yn.backward(g.npu())
    torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wn.grad.cpu(), wc.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("module", [
    lambda: torch.nn.Conv2d(3, 8, 3, stride=2, padding=1),
    lambda: torch.nn.ConvTranspose2d(3, 4, 4, stride=2, padding=1, groups=1),
    lambda: torch.nn.Conv1d(3, 6, 5, padding="same", groups=3, padding_mode="zeros"),
    lambda: torch.nn.Conv3d(3, 2, 3, padding=1, bias=False),
    lambda: torch.nn.ConvTranspose3d(3, 3, 2, stride=2, groups=3),
], ids=["Conv2d", "ConvTranspose2d", "Conv1d", "Conv3d", "ConvTranspose3d"])
def test_modules_train_like_cpu(module):
    torch.manual_seed(0)
    cpu = module()
    dev = module()
    dev.load_state_dict(cpu.state_dict())
    dev = dev.npu()
    spatial = {torch.nn.Conv1d: 1, torch.nn.Conv2d: 2, torch.nn.ConvTranspose2d: 2}.get(type(cpu), 3)
    x = rand((2, 3) + (6,) * spatial, torch.float32, 0)
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1)
    opt_n = torch.optim.SGD(dev.parameters(), lr=0.1)
    for _ in range(2):
        for m, opt, inp in ((cpu, opt_c, x), (dev, opt_n, x.npu())):
            opt.zero_grad()
            (m(inp) ** 2).mean().backward()
            opt.step()
    for pc, pn in zip(cpu.parameters(), dev.parameters()):
        torch.testing.assert_close(pn.detach().cpu(), pc.detach(), rtol=1e-4, atol=1e-5)


# ---- private formats: read in place, no format cast launched -------------------------------

def format_casts_during(f) -> int:
    before = npu_emu.native_report().get("aclnnNpuFormatCast", 0)
    f()
    torch.npu.synchronize()
    return npu_emu.native_report().get("aclnnNpuFormatCast", 0) - before


@pytest.fixture(params=[False, True], ids=["base output", "internal formats"])
def internal_format(request):
    old = torch.npu.config.allow_internal_format
    torch.npu.config.allow_internal_format = request.param
    yield request.param
    torch.npu.config.allow_internal_format = old


@pytest.mark.parametrize("spatial", [2, 3], ids=["NC1HWC0 + FRACTAL_Z", "NDC1HWC0 + FRACTAL_Z_3D"])
def test_private_format_operands_are_read_in_place(spatial, internal_format):
    act_fmt, w_fmt = (3, 4) if spatial == 2 else (32, 33)
    fn = F.conv2d if spatial == 2 else F.conv3d
    # 19 and 21 channels: both C0 blocks are partly padding.
    x = rand((2, 19) + (7,) * spatial, torch.float32, 0)
    w = rand((21, 19) + (3,) * spatial, torch.float32, 1)
    b = rand((21,), torch.float32, 2)
    xn = torch_npu.npu_format_cast(x.npu(), act_fmt).requires_grad_()
    wn = torch_npu.npu_format_cast(w.npu(), w_fmt).requires_grad_()
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    kwargs = dict(stride=2, padding=1)
    result = []

    def step():
        y = fn(xn, wn, b.npu(), **kwargs)
        y.backward(torch.ones_like(y))
        result.append(y)

    assert format_casts_during(step) == 0
    y = result[0]
    # torch_npu: an activation in the blocked format gives an output in it (internal formats allowed).
    assert torch_npu.get_npu_format(y) == (act_fmt if internal_format else (0 if spatial == 2 else 30))
    yc = fn(xc, wc, b, **kwargs)
    yc.backward(torch.ones_like(yc))
    torch.testing.assert_close(y.detach().cpu(), yc.detach(), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wn.grad.cpu(), wc.grad, rtol=1e-4, atol=1e-4)
    assert torch_npu.get_npu_format(xn) == act_fmt and torch_npu.get_npu_format(wn) == w_fmt


def test_stride_1_private_format_operands():
    # The shifted passes read NC1HWC0 activations and FRACTAL_Z weights in
    # place too (19 and 21 channels: partly padded C0 blocks).
    x, w, b = rand((2, 19, 9, 8), torch.float32, 0), rand((21, 19, 3, 3), torch.float32, 1), rand((21,), torch.float32, 2)
    xn = torch_npu.npu_format_cast(x.npu(), 3).requires_grad_()
    wn = torch_npu.npu_format_cast(w.npu(), 4).requires_grad_()
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    y, yc = F.conv2d(xn, wn, b.npu(), padding=1), F.conv2d(xc, wc, b, padding=1)
    g = rand(yc.shape, torch.float32, 3)
    y.backward(g.npu())
    yc.backward(g)
    torch.testing.assert_close(y.detach().cpu(), yc.detach(), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wn.grad.cpu(), wc.grad, rtol=1e-4, atol=1e-4)


# ---- bad arguments -------------------------------------------------------------------------

def test_bad_arguments_are_clear_errors():
    x, w = torch.randn(1, 3, 5, 5).npu(), torch.randn(4, 3, 3, 3).npu()
    with pytest.raises(RuntimeError, match="channels"):
        F.conv2d(torch.randn(1, 2, 5, 5).npu(), w)
    with pytest.raises(RuntimeError, match="groups"):
        F.conv2d(x, w, groups=2)
    with pytest.raises(RuntimeError, match="stride"):
        F.conv2d(x, w, stride=0)
    # Below PyTorch's checks, the aclnn entry names the parameter too.
    with pytest.raises(RuntimeError, match="groups must be positive"):
        torch.ops.aten.convolution_overrideable(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 0)
    with pytest.raises(RuntimeError, match="padding must hold 1 or 2 values"):
        torch.ops.aten.convolution_overrideable(x, w, None, [1, 1], [0, 0, 0], [1, 1], False, [0, 0], 1)


@pytest.mark.parametrize("transposed", [False, True], ids=["conv2d", "conv_transpose2d"])
def test_large_enough_to_split_across_threads(transposed):
    # Images and GEMMs both run on several workers (nested parallelism).
    fn = F.conv_transpose2d if transposed else F.conv2d
    ws = (48, 64, 3, 3) if transposed else (64, 48, 3, 3)
    x, w, b = rand((6, 48, 20, 20), torch.float32, 0), rand(ws, torch.float32, 1), rand((64,), torch.float32, 2)
    out_c, out_n, grads_c, grads_n = run_both(fn, x, w, b, dict(padding=1))
    torch.testing.assert_close(out_n.cpu(), out_c, rtol=1e-4, atol=1e-3)
    for gc, gn in zip(grads_c, grads_n):
        torch.testing.assert_close(gn.cpu(), gc, rtol=1e-4, atol=1e-2)


def test_arguments_left_to_pytorchs_composite_still_run_natively():
    # One value for both spatial dims is not what F.conv2d passes: `convolution`
    # leaves it to PyTorch's composite, which expands it and calls
    # convolution_overrideable / convolution_backward_overrideable.
    x, w, b = rand((2, 3, 7, 6), torch.float32, 0), rand((4, 3, 3, 2), torch.float32, 1), rand((4,), torch.float32, 2)
    args = ([2], [1], [1], False, [0], 1)
    out = torch.ops.aten.convolution(x.npu(), w.npu(), b.npu(), *args)
    expected = torch.ops.aten.convolution(x, w, b, *args)
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-5)
    g = rand(expected.shape, torch.float32, 3)
    grads = torch.ops.aten.convolution_backward(g.npu(), x.npu(), w.npu(), [4], *args, [True, True, True])
    expected_grads = torch.ops.aten.convolution_backward(g, x, w, [4], *args, [True, True, True])
    for got, exp in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu(), exp, rtol=1e-5, atol=1e-5)


def test_1d_operands_in_blocked_formats_are_copied_to_base():
    # A 3-d tensor in NC1HWC0 / FRACTAL_Z is stored padded to 4-d; the entry
    # reads only 2-d and 3-d convolutions' blocked layouts, so these arrive
    # as base-format copies, and the result is still CPU's.
    x, w = rand((2, 5, 9), torch.float32, 0), rand((3, 5, 3), torch.float32, 1)
    xn = torch_npu.npu_format_cast(x.npu(), 3)
    wn = torch_npu.npu_format_cast(w.npu(), 4)
    assert torch_npu.get_npu_format(xn) == 3 and torch_npu.get_npu_format(wn) == 4
    torch.testing.assert_close(F.conv1d(xn, wn, padding=1).cpu(), F.conv1d(x, w, padding=1), rtol=1e-5, atol=1e-5)


def test_small_images_in_several_chunks():
    # 14x14 images with 512 channels of 3x3 kernel positions: a chunk of
    # images side by side holds at most 2^23 column elements (9 images here),
    # so a batch of 10 runs as two chunks (the last one of a single image).
    x, w, b = rand((10, 512, 14, 14), torch.float32, 0), rand((8, 512, 3, 3), torch.float32, 1), None
    out_c, out_n, grads_c, grads_n = run_both(F.conv2d, x, w, b, dict(padding=1))
    torch.testing.assert_close(out_n.cpu(), out_c, rtol=1e-4, atol=1e-3)
    for gc, gn in zip(grads_c, grads_n):
        torch.testing.assert_close(gn.cpu(), gc, rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_stem_weight_and_bias_gradients_without_input_gradient(dtype):
    # ResNet's 7x7/2 stem as the benchmark runs it: the input needs no
    # gradient, so only the weight and bias gradients are computed (on the
    # tile GEMM where AVX-512 runs: the output gradient's rows times windows
    # of the padded input, k split over the batch's positions). Odd sizes.
    x, w, b = rand((5, 3, 33, 31), dtype, 0), rand((64, 3, 7, 7), dtype, 1), rand((64,), dtype, 2)
    wc, bc = w.clone().requires_grad_(), b.clone().requires_grad_()
    wn, bn = w.npu().requires_grad_(), b.npu().requires_grad_()
    yc, yn = F.conv2d(x, wc, bc, stride=2, padding=3), F.conv2d(x.npu(), wn, bn, stride=2, padding=3)
    g = rand(yc.shape, dtype, 3)
    yc.backward(g)
    yn.backward(g.npu())
    tol = TOLERANCE[dtype]
    # Against the float64 gradients (CPU's bfloat16 rounds differently).
    w64 = w.double().requires_grad_()
    b64 = b.double().requires_grad_()
    F.conv2d(x.double(), w64, b64, stride=2, padding=3).backward(g.double())
    for got, ref in ((wn.grad, w64.grad), (bn.grad, b64.grad)):
        scale = max(1.0, ref.abs().max().item())
        torch.testing.assert_close(got.cpu().double() / scale, ref / scale, **tol)
    torch.testing.assert_close(yn.cpu().double(), F.conv2d(x.double(), w64, b64, stride=2, padding=3), **tol)
    if dtype == torch.float32:
        torch.testing.assert_close(wn.grad.cpu(), wc.grad, rtol=1e-4, atol=1e-3)
        torch.testing.assert_close(bn.grad.cpu(), bc.grad, rtol=1e-4, atol=1e-3)
