"""The activations run natively on npu (ops/table/activation.yaml and the
backward rows of activation_backward.yaml) and match CPU: forward in
float32/float64/float16/bfloat16 on contiguous and strided inputs, the
in-place forms, out=, the backward ops (against CPU's gradients and by
gradcheck in float64), elu's in-place backward from its result, and special
values against their mathematical values (never CPU's ISA-dependent output).

Tolerances: float16/bfloat16 compute in float32 and round once, as CPU does,
but CPU rounds some intermediates (logit, glu's backward) to the element
type, so reduced types agree within a few of their ulps; float32 within
libm differences; float64 within 1e-10. Every test forbids the CPU fallback
(native_only).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401
from npu_compare import assert_matches_cpu, seeded_randn

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 2e-3),
       torch.bfloat16: (1.6e-2, 1.6e-2)}


def close(npu_result: torch.Tensor, cpu_result: torch.Tensor) -> None:
    assert_matches_cpu(npu_result, cpu_result, TOL)


rand = seeded_randn


def prob(shape, dtype, seed=0) -> torch.Tensor:
    """Values in (0, 1), some beyond logit's eps=0.1 clamp."""
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 0.98 + 0.01).to(dtype)


# name -> (function of x, input maker). Each covers one aten op (or a
# PyTorch composition of one) with non-default scalar arguments.
FORWARD = {
    "elu": (lambda x: F.elu(x, alpha=0.7), rand),
    "elu_scales": (lambda x: torch.ops.aten.elu(x, 0.5, 1.5, 2.0), rand),
    "celu": (lambda x: F.celu(x, alpha=1.3), rand),
    "selu": (F.selu, rand),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), rand),
    "leaky_relu_negative_slope": (lambda x: F.leaky_relu(x, -0.3), rand),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3, training=False), rand),
    "hardswish": (F.hardswish, rand),
    "hardsigmoid": (F.hardsigmoid, rand),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), rand),
    "relu6": (F.relu6, rand),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=3.0), rand),
    "softplus_default": (F.softplus, rand),
    "mish": (F.mish, rand),
    "logsigmoid": (F.logsigmoid, rand),
    "hardshrink": (lambda x: F.hardshrink(x, 0.75), rand),
    "softshrink": (lambda x: F.softshrink(x, 0.75), rand),
    "glu_last": (lambda x: F.glu(x, -1), rand),
    "glu_dim0": (lambda x: F.glu(x, 0), rand),
    "prelu_shared": (lambda x: F.prelu(x, torch.tensor([0.25], dtype=x.dtype, device=x.device)), rand),
    "prelu_channels": (lambda x: F.prelu(x, torch.linspace(-0.5, 0.5, x.shape[1], dtype=x.dtype).to(x.device)),
                       rand),
    "logit": (torch.logit, prob),
    "logit_eps": (lambda x: torch.logit(x, eps=0.1), prob),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(FORWARD))
def test_forward_matches_cpu(name, dtype):
    fn, make = FORWARD[name]
    x = make((4, 6, 10), dtype)
    close(fn(x.to("npu")), fn(x))
    # A strided (transposed) input.
    xt = x.transpose(0, 2)
    close(fn(xt.to("npu")), fn(xt))


IN_PLACE = {
    "elu": lambda x: F.elu(x, alpha=0.7, inplace=True),
    "celu": lambda x: F.celu(x, inplace=True),
    "selu": lambda x: F.selu(x, inplace=True),
    "leaky_relu_": lambda x: F.leaky_relu_(x, 0.2),
    "hardtanh_": lambda x: F.hardtanh_(x, -0.5, 2.0),
    "relu6": lambda x: F.relu6(x, inplace=True),
    "hardswish": lambda x: F.hardswish(x, inplace=True),
    "hardsigmoid": lambda x: F.hardsigmoid(x, inplace=True),
    "mish": lambda x: F.mish(x, inplace=True),
    "logit_": lambda x: x.clamp_(0.01, 0.99).logit_(eps=0.05),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_matches_cpu(name, dtype):
    fn = IN_PLACE[name]
    x = rand((5, 8), dtype, scale=2.0, offset=0.3)
    xc, xn = x.clone(), x.to("npu")
    ptr = xn.data_ptr()
    rc, rn = fn(xc), fn(xn)
    assert rn.data_ptr() == ptr
    close(xn, xc)
    close(rn, rc)


@pytest.mark.parametrize("name", ["elu", "leaky_relu_", "hardtanh_", "hardswish", "mish"])
def test_in_place_on_strided_views(name):
    """In place on a transposed view and on a channels_last tensor writes through the view's strides."""
    fn = IN_PLACE[name]
    base = rand((2, 3, 4, 5), torch.float32)
    for make in (lambda t: t.transpose(1, 3), lambda t: t.contiguous(memory_format=torch.channels_last)):
        xc, xn = make(base.clone()), make(base.to("npu"))
        fn(xc)
        fn(xn)
        assert xn.stride() == xc.stride()
        close(xn, xc)


OUT = {
    "elu.out": lambda x, out: torch.ops.aten.elu.out(x, 0.7, 1.2, 0.9, out=out),
    "leaky_relu.out": lambda x, out: torch.ops.aten.leaky_relu.out(x, 0.2, out=out),
    "hardsigmoid.out": lambda x, out: torch.ops.aten.hardsigmoid.out(x, out=out),
    "hardswish.out": lambda x, out: torch.ops.aten.hardswish.out(x, out=out),
    "hardtanh.out": lambda x, out: torch.ops.aten.hardtanh.out(x, -0.5, 2.0, out=out),
    "softplus.out": lambda x, out: torch.ops.aten.softplus.out(x, 2.0, 3.0, out=out),
    "mish.out": lambda x, out: torch.ops.aten.mish.out(x, out=out),
    "hardshrink.out": lambda x, out: torch.ops.aten.hardshrink.out(x, 0.75, out=out),
    "softshrink.out": lambda x, out: torch.ops.aten.softshrink.out(x, 0.75, out=out),
    "glu.out": lambda x, out: torch.ops.aten.glu.out(x, 1, out=out),
    "logit.out": lambda x, out: torch.logit(x.sigmoid(), 0.1, out=out),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", list(OUT))
def test_out_matches_cpu(name, dtype):
    fn = OUT[name]
    x = rand((6, 8), dtype)
    oc = torch.empty(0, dtype=dtype)
    on = torch.empty(0, dtype=dtype, device="npu")
    rc, rn = fn(x, oc), fn(x.to("npu"), on)
    assert rn is on
    close(on, oc)
    close(rn, rc)


def test_log_sigmoid_forward_out_and_buffer():
    x = rand((7, 5), torch.float32)
    out_c, buf_c = torch.ops.aten.log_sigmoid_forward(x)
    out_n, buf_n = torch.ops.aten.log_sigmoid_forward(x.to("npu"))
    close(out_n, out_c)
    close(buf_n, buf_c)
    o, b = torch.empty(0, device="npu"), torch.empty(0, device="npu")
    r = torch.ops.aten.log_sigmoid_forward.output(x.to("npu"), output=o, buffer=b)
    assert r[0] is o and r[1] is b
    close(o, out_c)
    close(b, buf_c)
    close(F.logsigmoid(x.to("npu")), F.logsigmoid(x))


# name -> (function, input maker); backward through each activation.
BACKWARD = {k: v for k, v in FORWARD.items() if not k.startswith("rrelu")}


KINKS = (0.0, 0.5, -0.5, 0.75, -0.75, 2.0, 3.0, -3.0)


def away_from_kinks(x: torch.Tensor) -> torch.Tensor:
    """x with every element at least 0.05 away from the activations' kinks,
    where gradcheck's finite differences straddle two slopes (the value CPU
    picks at a kink is tested by test_backward_at_kinks)."""
    kinks = torch.tensor(KINKS, dtype=torch.float64)
    near = (x.double().unsqueeze(-1) - kinks).abs().min(-1).values < 0.05
    return torch.where(near, x.double() + 0.1, x.double()).to(x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", list(BACKWARD))
def test_backward_matches_cpu(name, dtype):
    fn, make = BACKWARD[name]
    x = make((4, 6, 10), dtype)
    if make is rand:
        x = away_from_kinks(x)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    yc, yn = fn(xc), fn(xn)
    g = rand(yc.shape, dtype, seed=3, scale=1.0)
    yc.backward(g)
    yn.backward(g.to("npu"))
    close(xn.grad, xc.grad)


KINK_CASES = {
    "hardswish_backward": (lambda g, x: torch.ops.aten.hardswish_backward(g, x), [-3.0, 3.0]),
    "hardsigmoid_backward": (lambda g, x: torch.ops.aten.hardsigmoid_backward(g, x), [-3.0, 3.0]),
    "hardtanh_backward": (lambda g, x: torch.ops.aten.hardtanh_backward(g, x, -0.5, 2.0), [-0.5, 2.0]),
    "leaky_relu_backward": (lambda g, x: torch.ops.aten.leaky_relu_backward(g, x, 0.2, False), [0.0, -0.0]),
    "elu_backward": (lambda g, x: torch.ops.aten.elu_backward(g, 0.7, 1.2, 0.9, False, x), [0.0, -0.0]),
    "elu_backward_result": (lambda g, x: torch.ops.aten.elu_backward(g, 0.7, 1.2, 0.9, True, x), [0.0, -0.0]),
    "hardshrink_backward": (lambda g, x: torch.ops.aten.hardshrink_backward(g, x, 0.5), [0.5, -0.5]),
    "softshrink_backward": (lambda g, x: torch.ops.aten.softshrink_backward(g, x, 0.5), [0.5, -0.5]),
    "softplus_backward": (lambda g, x: torch.ops.aten.softplus_backward(g, x, 2.0, 4.0), [2.0]),
    "logit_backward": (lambda g, x: torch.ops.aten.logit_backward(g, x, 0.25), [0.25, 0.75]),
    "prelu_backward": (lambda g, x: torch.cat(torch.ops.aten._prelu_kernel_backward(g, x, torch.full_like(x, 0.3))),
                       [0.0, -0.0]),
}


@pytest.mark.parametrize("n", [1, 64])
@pytest.mark.parametrize("name", list(KINK_CASES))
def test_backward_at_kinks(name, n):
    """Exactly at a kink CPU picks one side's slope (hardswish_backward: 0 at
    -3, gradOutput at 3); npu picks the same, in its scalar and vectorized
    loops alike (n = 1 and 64 elements)."""
    fn, points = KINK_CASES[name]
    for v in points:
        x = torch.full((n,), v)
        g = torch.full((n,), 2.0)
        assert torch.equal(fn(g.to("npu"), x.to("npu")).cpu(), fn(g, x)), v


def test_prelu_weight_gradient_matches_cpu():
    for dtype in (torch.float32, torch.bfloat16):
        x = rand((3, 4, 5), dtype)
        w = torch.tensor([0.1, -0.2, 0.3, 0.4], dtype=dtype)
        wc, wn = w.clone().requires_grad_(), w.to("npu").requires_grad_()
        xc, xn = x.clone().requires_grad_(), x.to("npu").requires_grad_()
        g = rand((3, 4, 5), dtype, seed=5, scale=1.0)
        F.prelu(xc, wc).backward(g)
        F.prelu(xn, wn).backward(g.to("npu"))
        close(xn.grad, xc.grad)
        close(wn.grad, wc.grad)


@pytest.mark.parametrize("inplace_fn", [lambda x: F.elu(x, alpha=0.7, inplace=True),
                                        lambda x: F.leaky_relu(x, 0.2, inplace=True),
                                        lambda x: F.celu(x, 1.3, inplace=True)])
def test_in_place_backward_from_result(inplace_fn):
    """elu_/leaky_relu_ save their result: elu_backward runs with is_result=True."""
    x = rand((6, 7), torch.float32)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    yc = inplace_fn(xc * 1.0)
    yn = inplace_fn(xn * 1.0)
    g = rand((6, 7), torch.float32, seed=2)
    yc.backward(g)
    yn.backward(g.to("npu"))
    close(xn.grad, xc.grad)


def test_elu_backward_is_result_direct():
    x = rand((9,), torch.float64)
    y = F.elu(x, 0.7)
    g = rand((9,), torch.float64, seed=1)
    for is_result, operand in ((True, y), (False, x)):
        c = torch.ops.aten.elu_backward(g, 0.7, 1.0, 1.0, is_result, operand)
        n = torch.ops.aten.elu_backward(g.to("npu"), 0.7, 1.0, 1.0, is_result, operand.to("npu"))
        close(n, c)


GRADCHECK = {
    "elu": lambda x: torch.ops.aten.elu(x, 0.7, 1.3, 0.8),
    "selu": F.selu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "softplus": lambda x: F.softplus(x, beta=2.0, threshold=3.0),
    "mish": F.mish,
    "logsigmoid": F.logsigmoid,
    "hardshrink": lambda x: F.hardshrink(x, 0.75),
    "softshrink": lambda x: F.softshrink(x, 0.75),
    "glu": lambda x: F.glu(x, 1),
    "logit": lambda x: torch.logit(x.sigmoid() * 0.9 + 0.05, eps=0.1),
}


def kink_free(shape, seed=0) -> torch.Tensor:
    return away_from_kinks(rand(shape, torch.float64, seed=seed, scale=2.0))


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck(name):
    fn = GRADCHECK[name]
    x = kink_free((3, 4)).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(fn, (x,))


def test_prelu_backward_channels_last_matches_cpu():
    x = rand((2, 3, 4, 5), torch.float32).contiguous(memory_format=torch.channels_last)
    w = torch.tensor([0.1, -0.2, 0.3])
    g = rand((2, 3, 4, 5), torch.float32, seed=1).contiguous(memory_format=torch.channels_last)
    wc = w.reshape(1, 3, 1, 1).expand_as(x)
    gi_c, gw_c = torch.ops.aten._prelu_kernel_backward(g, x, wc)
    gi_n, gw_n = torch.ops.aten._prelu_kernel_backward(g.to("npu"), x.to("npu"), wc.to("npu"))
    close(gi_n, gi_c)
    close(gw_n, gw_c)
    assert gi_n.stride() == gi_c.stride()


def test_prelu_gradcheck():
    x = kink_free((2, 3, 4)).to("npu").requires_grad_()
    w = torch.tensor([0.1, -0.3, 0.6], dtype=torch.float64, device="npu").requires_grad_()
    assert torch.autograd.gradcheck(F.prelu, (x, w))


SECOND_ORDER = {
    "gelu": F.gelu,
    "silu": F.silu,
    "mish": F.mish,
    "elu": lambda x: F.elu(x, 0.7),
    "softplus": F.softplus,
    "logsigmoid": F.logsigmoid,
    "hardswish": F.hardswish,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "selu": F.selu,
    "softshrink": F.softshrink,
    "glu": lambda x: F.glu(x, 1),
    "logit": lambda x: torch.logit(x.sigmoid() * 0.9 + 0.05, 0.1),
}


def second_order_matches_cpu(fn, x: torch.Tensor, xn: torch.Tensor) -> None:
    """fn's gradient (keeping its graph) and the gradient of that gradient's sum match CPU's."""
    xc = x.clone().requires_grad_()
    (gc,) = torch.autograd.grad(fn(xc).sum(), xc, create_graph=True)
    (gn,) = torch.autograd.grad(fn(xn).sum(), xn, create_graph=True)
    close(gn.detach(), gc.detach())
    (hc,) = torch.autograd.grad(gc.sum(), xc)
    (hn,) = torch.autograd.grad(gn.sum(), xn)
    close(hn, hc)


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order(name):
    """Double backward runs natively and matches CPU (gradgradcheck in float64)."""
    fn = SECOND_ORDER[name]
    x = kink_free((3, 4), seed=4)
    xn = x.to("npu").requires_grad_()
    assert torch.autograd.gradgradcheck(fn, (xn,))
    second_order_matches_cpu(fn, x, xn)


def test_gelu_tanh_second_order_is_native():
    """gelu(approximate='tanh')'s double backward (gelu_double_backward, a
    PyTorch composition calling cosh among native activation ops) runs
    natively and matches CPU (gradgradcheck in float64)."""
    fn = lambda t: F.gelu(t, approximate="tanh")  # noqa: E731
    x = kink_free((3, 4), seed=4)
    xn = x.to("npu").requires_grad_()
    second_order_matches_cpu(fn, x, xn)
    x64 = x.double().to("npu").requires_grad_()
    assert torch.autograd.gradgradcheck(fn, (x64,))


INF, NAN = math.inf, math.nan


# (function, inputs, mathematical results)
SPECIAL = {
    "elu": (lambda x: F.elu(x, 0.7), [INF, -INF, NAN, 0.0], [INF, -0.7, NAN, 0.0]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), [INF, -INF, NAN], [INF, -INF, NAN]),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), [INF, -INF, NAN], [2.0, -0.5, NAN]),
    "hardsigmoid": (F.hardsigmoid, [INF, -INF, 3.0, -3.0], [1.0, 0.0, 1.0, 0.0]),
    "hardswish": (F.hardswish, [INF, -3.0, 3.0], [INF, 0.0, 3.0]),
    "softplus": (F.softplus, [INF, -INF, NAN], [INF, 0.0, NAN]),
    "logsigmoid": (F.logsigmoid, [INF, -INF, NAN], [0.0, -INF, NAN]),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), [INF, -INF, NAN, 0.5, -0.5], [INF, -INF, NAN, 0.0, 0.0]),
    "softshrink": (lambda x: F.softshrink(x, 0.5), [INF, -INF, NAN, 0.5], [INF, -INF, NAN, 0.0]),
    "logit": (torch.logit, [0.0, 1.0, 0.5, 1.5, NAN], [-INF, INF, 0.0, NAN, NAN]),
    "logit_eps": (lambda x: torch.logit(x, 0.25), [0.0, 1.0], [math.log(1 / 3), math.log(3)]),
    "glu": (lambda x: F.glu(x, 0), [2.0, INF], [2.0]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_values(name, dtype):
    fn, inputs, expected = SPECIAL[name]
    got = fn(torch.tensor(inputs, dtype=dtype, device="npu")).cpu().double()
    want = torch.tensor(expected, dtype=torch.float64).to(dtype).double()
    torch.testing.assert_close(got, want, equal_nan=True, rtol=1e-2, atol=0)


@pytest.mark.parametrize("dtype,atol", [(torch.float16, 1e-4), (torch.bfloat16, 1e-3)])
@pytest.mark.parametrize("eps", [None, 0.05])
def test_logit_reduced_rounds_like_cpu(dtype, atol, eps):
    """CPU computes float16/bfloat16 logit op by op in the element type
    (1 - x, the ratio and the log each rounded), so near x = 0.5 its result
    is off the float32 one by up to a bfloat16 ulp of the ratio; npu
    rounds the same way and agrees to within float32 libm differences."""
    x = prob((4000,), dtype, seed=9)
    got = torch.logit(x.to("npu"), eps).cpu()
    want = torch.logit(x, eps)
    torch.testing.assert_close(got, want, rtol=torch.finfo(dtype).eps, atol=atol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_rrelu_training_draws_slopes_natively(dtype):
    """rrelu in training (aten::rrelu_with_noise) draws from the npu
    generator: reproducible under manual_seed, slopes r ~ U[lower, upper)
    where x <= 0 (out = x * r, noise = r), identity and noise 1 elsewhere;
    its backward is grad * noise."""
    lower, upper = 0.1, 0.3
    x = rand((100, 100), dtype).to("npu")
    noise = torch.empty_like(x)
    torch.manual_seed(5)
    out = torch.ops.aten.rrelu_with_noise(x, noise, lower, upper, True)
    noise2 = torch.empty_like(x)
    torch.manual_seed(5)
    again = torch.ops.aten.rrelu_with_noise(x, noise2, lower, upper, True)
    assert torch.equal(out.cpu(), again.cpu()) and torch.equal(noise.cpu(), noise2.cpu())
    xc, oc, nc = x.cpu().double(), out.cpu().double(), noise.cpu().double()
    neg = xc <= 0
    assert torch.equal(oc[~neg], xc[~neg]) and bool((nc[~neg] == 1).all())
    slopes = nc[neg]
    assert bool((slopes >= lower - 1e-3).all() and (slopes <= upper + 1e-3).all())
    assert abs(slopes.mean().item() - (lower + upper) / 2) < 0.01
    torch.testing.assert_close(oc[neg], (xc * nc)[neg], rtol=TOL[dtype][0], atol=TOL[dtype][1])
    # F.rrelu (training) and its gradient.
    xg = x.clone().requires_grad_()
    y = F.rrelu(xg, lower, upper, training=True)
    y.backward(torch.ones_like(y))
    ratio = torch.where(xc <= 0, y.detach().cpu().double() / xc, torch.ones_like(xc))
    torch.testing.assert_close(xg.grad.cpu().double(), ratio.to(dtype).double(), rtol=2 * TOL[dtype][0],
                               atol=TOL[dtype][1])


def test_rrelu_in_place_training_and_eval():
    x = rand((6, 7), torch.float32)
    xn = x.to("npu")
    F.rrelu(xn, 0.2, 0.4, training=False, inplace=True)
    close(xn, F.rrelu(x, 0.2, 0.4, training=False))
    xn = x.to("npu")
    y = F.rrelu(xn, 0.2, 0.4, training=True, inplace=True)
    assert y is xn
    neg = x <= 0
    assert torch.equal(xn.cpu()[~neg], x[~neg])
    r = xn.cpu()[neg] / x[neg]
    assert bool((r >= 0.2 - 1e-6).all() and (r <= 0.4 + 1e-6).all())


def test_glu_odd_dim_is_rejected():
    x = torch.randn(3, 5, device="npu")
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(x, 1)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        torch.ops.aten.glu_backward(torch.randn(3, 2, device="npu"), x, 1)


def test_leaky_relu_in_place_negative_slope_backward_is_rejected():
    """As on CPU: an in-place leaky_relu with a negative slope cannot be differentiated from its result."""
    x = torch.randn(4, device="npu", requires_grad=True)
    y = F.leaky_relu(x * 1.0, -0.2, inplace=True)
    with pytest.raises(RuntimeError, match="negative slope"):
        y.sum().backward()


def test_glu_backward_out_matches_cpu():
    x = rand((4, 6), torch.float32)
    g = rand((4, 3), torch.float32, seed=1)
    oc = torch.empty(0)
    on = torch.empty(0, device="npu")
    torch.ops.aten.glu_backward.grad_input(g, x, 1, grad_input=oc)
    r = torch.ops.aten.glu_backward.grad_input(g.to("npu"), x.to("npu"), 1, grad_input=on)
    assert r is on
    close(on, oc)
