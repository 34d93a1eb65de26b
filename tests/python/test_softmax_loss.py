"""softmax / log_softmax, nll_loss (1d and 2d), cross_entropy, threshold and
the activations' backward ops (threshold_backward = relu's, sigmoid, tanh,
silu, gelu in both approximations) run natively on npu and match CPU.

Tolerances: float16/bfloat16 compute in float and round once, as CPU does;
results may still differ from CPU's in the last bit of the reduced type
(different summation order; backward formulas subtract nearly equal
terms), so they are compared within a few ulps of the reduced type,
absolutely within two ulps of the result's largest value; float32/float64 within summation-order rounding.
threshold_backward selects values and must be exact. Every test forbids
the CPU fallback (native_only); gradcheck runs in float64.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401
from npu_compare import assert_matches_cpu, seeded_randn

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TOL = {torch.float32: (1.3e-5, 5e-5), torch.float64: (1e-12, 1e-12), torch.float16: (4e-3, 1e-2),
       torch.bfloat16: (3.2e-2, 5e-2)}


def close(npu_result: torch.Tensor, cpu_result: torch.Tensor) -> None:
    # Gradients like g - exp(y) * sum(g) cancel: two ulps of the largest value.
    assert_matches_cpu(npu_result, cpu_result, TOL, ulps_of_largest=2)


def rand(shape, dtype, seed=0) -> torch.Tensor:
    return seeded_randn(shape, dtype, seed)


# Shapes: 0-dim, 0-size, one row, a large tensor split across threads, and
# reductions over inner and outer dims.
SOFTMAX_CASES = [((), 0), ((0, 5), 1), ((7,), 0), ((4, 5), 1), ((4, 5), 0), ((3, 4, 5), 1), ((2, 3, 4, 5), -1),
                 ((64, 1000), 1), ((8, 300, 40), 1)]


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
def test_softmax_forward_backward(shape, dim, dtype, log):
    fn = F.log_softmax if log else F.softmax
    x = rand(shape, dtype)
    g = rand(shape, dtype, seed=1)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    yc = fn(xc, dim)
    yn = fn(xn, dim)
    close(yn.detach(), yc.detach())
    yc.backward(g)
    yn.backward(g.to("npu"))
    close(xn.grad, xc.grad)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_non_contiguous_and_out(log):
    base = rand((6, 8, 5), torch.float32)
    x = base.transpose(0, 2)[:, ::2]  # strided, non-contiguous
    op = torch._log_softmax if log else torch._softmax
    close(op(x.to("npu"), 1, False), op(x, 1, False))
    out = torch.empty(0, device="npu")
    torch.log_softmax(x.to("npu"), 2, out=out) if log else torch.softmax(x.to("npu"), 2, out=out)
    close(out, torch.log_softmax(x, 2) if log else torch.softmax(x, 2))
    # The backward on non-contiguous gradients / outputs.
    y = op(base, 1, False)
    g = rand(base.shape, torch.float32, seed=2).transpose(0, 1).contiguous().transpose(0, 1)
    bwd = torch._log_softmax_backward_data if log else torch._softmax_backward_data
    close(bwd(g.to("npu"), y.to("npu"), 1, torch.float32), bwd(g, y, 1, torch.float32))


@pytest.mark.parametrize("log", [False, True])
def test_softmax_gradcheck(log):
    fn = F.log_softmax if log else F.softmax
    x = rand((3, 4, 5), torch.float64).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(lambda t: fn(t, 1), (x,))
    assert torch.autograd.gradgradcheck(lambda t: fn(t, 2), (x,))


def test_softmax_bad_dim():
    x = torch.randn(3, 4, device="npu")
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.softmax(x, 2)


# ---- nll_loss / cross_entropy -------------------------------------------------------

REDUCTIONS = ["none", "mean", "sum"]


def targets(n_classes: int, shape, ignore_at=None, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(0, n_classes, shape, generator=g)
    if ignore_at is not None:
        t.view(-1)[::3] = ignore_at
    return t


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("self_shape,target_shape", [((5, 4), (5,)), ((4,), ()), ((0, 4), (0,)),
                                                     ((300, 10), (300,)), ((2, 4, 3, 5), (2, 3, 5))])
def test_nll_loss(self_shape, target_shape, weighted, dtype, reduction):
    c = self_shape[1] if len(self_shape) > 1 else self_shape[0]
    x = rand(self_shape, dtype)
    t = targets(c, target_shape, ignore_at=2 if len(target_shape) else None)
    w = rand((c,), dtype, seed=3).abs() if weighted else None
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    kw = dict(reduction=reduction, ignore_index=2)
    lc = F.nll_loss(xc, t, w, **kw)
    ln = F.nll_loss(xn, t.to("npu"), None if w is None else w.to("npu"), **kw)
    close(ln.detach(), lc.detach())
    g = rand(lc.shape, dtype, seed=4)
    lc.backward(g)
    ln.backward(g.to("npu"))
    close(xn.grad, xc.grad)


def test_nll_loss_uint8_target_and_default_ignore():
    x = rand((6, 3), torch.float32)
    t = targets(3, (6,)).to(torch.uint8)
    close(F.nll_loss(x.to("npu"), t.to("npu")), F.nll_loss(x, t))


def test_nll_loss_all_ignored_mean_is_nan():
    x = rand((3, 4), torch.float32).to("npu")
    t = torch.full((3,), -100, device="npu")
    assert torch.isnan(F.nll_loss(x, t).cpu())


def test_nll_loss_bad_arguments():
    x = torch.randn(3, 4, device="npu")
    with pytest.raises(RuntimeError, match="out of bounds"):
        F.nll_loss(x, torch.tensor([0, 1, 7], device="npu")).cpu()
    with pytest.raises(ValueError):
        F.nll_loss(x, torch.tensor([0, 1], device="npu"))
    with pytest.raises(RuntimeError, match="weight"):
        F.nll_loss(x, torch.tensor([0, 1, 2], device="npu"), torch.ones(3, device="npu"))
    with pytest.raises(RuntimeError, match="target"):
        torch.ops.aten.nll_loss2d_forward(torch.randn(2, 4, 3, 3, device="npu"),
                                          torch.zeros(2, 3, device="npu", dtype=torch.long), None, 1, -100)


def test_nll_loss_gradcheck():
    x = rand((5, 4), torch.float64).to("npu").requires_grad_()
    t = targets(4, (5,)).to("npu")
    w = rand((4,), torch.float64).abs().to("npu")
    for reduction in REDUCTIONS:
        assert torch.autograd.gradcheck(lambda s: F.nll_loss(s, t, w, reduction=reduction, ignore_index=1), (x,))
    x2 = rand((2, 3, 2, 2), torch.float64).to("npu").requires_grad_()
    t2 = targets(3, (2, 2, 2)).to("npu")
    assert torch.autograd.gradcheck(lambda s: F.nll_loss(s, t2), (x2,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.1}, {"weight": True}, {"ignore_index": 1},
                                    {"reduction": "sum"}, {"probabilities": True}])
@pytest.mark.parametrize("spatial", [False, True])
def test_cross_entropy(kwargs, dtype, spatial):
    kwargs = dict(kwargs)
    shape = (4, 5, 3, 2) if spatial else (6, 5)
    x = rand(shape, dtype)
    if kwargs.pop("probabilities", False):
        t = torch.softmax(rand(shape, torch.float32, seed=5), 1).to(dtype)
    else:
        t = targets(5, (shape[0],) + shape[2:])
    w = rand((5,), dtype, seed=6).abs() if kwargs.pop("weight", False) else None
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    lc = F.cross_entropy(xc, t, w, **kwargs)
    ln = F.cross_entropy(xn, t.to("npu"), None if w is None else w.to("npu"), **kwargs)
    close(ln.detach(), lc.detach())
    lc.backward()
    ln.backward()
    close(xn.grad, xc.grad)


# ---- threshold_backward (relu's backward) ------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.int64])
def test_threshold_backward_exact(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-3, 4, (40, 33), generator=g).to(dtype)  # exact zeros included
    grad = torch.randint(-9, 9, (40, 33), generator=g).to(dtype)
    for th in (0, 1, -2):
        expected = torch.where(x <= th, torch.zeros_like(grad), grad)
        result = torch.ops.aten.threshold_backward(grad.to("npu"), x.to("npu"), th)
        assert result.dtype == dtype
        assert torch.equal(result.cpu(), expected)


def test_threshold_backward_broadcast_strided_out():
    x = rand((5, 1), torch.float32)
    grad = rand((4, 5, 6), torch.float32).transpose(1, 2)
    out = torch.empty(0, device="npu")
    torch.ops.aten.threshold_backward.grad_input(grad.to("npu"), x.to("npu").t(), 0.5, grad_input=out)
    assert torch.equal(out.cpu(), torch.ops.aten.threshold_backward(grad, x.t(), 0.5))


@pytest.mark.parametrize("dtype", FLOATS)
def test_relu_training_step(dtype):
    x = rand((64, 600), dtype)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    F.relu(xc).pow(2).sum().backward()
    F.relu(xn).pow(2).sum().backward()
    close(xn.grad, xc.grad)


def test_relu_gradcheck():
    x = (rand((4, 5), torch.float64) + 0.05).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(F.relu, (x,))
    assert torch.autograd.gradcheck(lambda t: F.threshold(t, 0.3, -1.0), (x,))


# ---- sigmoid / tanh / silu backward ------------------------------------------------

ACTIVATIONS = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": F.silu, "gelu": F.gelu,
               "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
@pytest.mark.parametrize("shape", [(0, 3), (), (7, 9), (256, 300)])
def test_activation_backward(name, shape, dtype):
    fn = ACTIVATIONS[name]
    x = rand(shape, dtype)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    g = rand(shape, dtype, seed=1)
    fn(xc).backward(g)
    fn(xn).backward(g.to("npu"))
    close(xn.grad, xc.grad)


def test_activation_backward_ops_broadcast_and_strided():
    y = torch.sigmoid(rand((5, 1), torch.float32))
    g = rand((6, 5), torch.float32).t()
    # (gelu_backward is left out: CPU's oneDNN kernel refuses these operands.)
    for op in (torch.ops.aten.sigmoid_backward, torch.ops.aten.tanh_backward, torch.ops.aten.silu_backward):
        close(op(g.to("npu"), y.to("npu")), op(g, y))  # g [5, 6] strided, y [5, 1] broadcast


def test_gelu_backward_bad_approximate():
    x = torch.randn(3, device="npu")
    with pytest.raises(RuntimeError, match="none or tanh"):
        torch.ops.aten.gelu_backward(x, x, approximate="erf")


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_gradcheck(name):
    x = rand((4, 5), torch.float64).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(ACTIVATIONS[name], (x,))
    assert torch.autograd.gradgradcheck(ACTIVATIONS[name], (x,))
