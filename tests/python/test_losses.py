"""Every torch.nn.functional loss runs natively on npu (the CPU fallback is
forbidden in each test) and matches CPU, forward and backward, across
dtypes and reductions; gradcheck in float64 on npu.

The natively served aten ops (ops/table/loss.yaml): mse_loss(+backward),
smooth_l1_loss(+backward), huber_loss(+backward), binary_cross_entropy
(+backward), binary_cross_entropy_with_logits, multi_margin_loss(+backward),
multilabel_margin_loss_forward(+backward), nll_loss / nll_loss2d (with
test_softmax_loss.py). The others (l1, kl_div, cross_entropy with
probabilities, poisson/gaussian nll, margin ranking, hinge, cosine,
triplet, soft margin) are PyTorch compositions whose every op must be
native too.

Tolerances: elements compute in float (double for float64) and reduce in
double, where CPU reduces in float along its own order; float16/bfloat16
results round once, so they may differ from CPU's by an ulp of the reduced
type. Where CPU lacks a reduced-float kernel, the reference is CPU's float32
result rounded to the dtype.
"""

from __future__ import annotations

import re
from typing import Callable

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401
from npu_compare import assert_matches_cpu

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
TOL = {torch.float32: (2e-5, 2e-5), torch.float64: (1e-10, 1e-10), torch.float16: (5e-3, 5e-3),
       torch.bfloat16: (3.2e-2, 3.2e-2)}
REDUCTIONS = ["none", "mean", "sum"]


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(shape, seed=0) -> torch.Tensor:
    return torch.randn(shape, generator=gen(seed), dtype=torch.float64)


def uniform(shape, lo, hi, seed=0) -> torch.Tensor:
    return torch.rand(shape, generator=gen(seed), dtype=torch.float64) * (hi - lo) + lo


def classes(shape, c, seed=0) -> torch.Tensor:
    return torch.randint(0, c, shape, generator=gen(seed))


def signs(shape, seed=0) -> torch.Tensor:
    return torch.randint(0, 2, shape, generator=gen(seed)).double() * 2 - 1


def multilabel_targets(n, c, seed=0) -> torch.Tensor:
    """Rows listing a few distinct classes, ended by -1 (or full)."""
    g = gen(seed)
    t = torch.full((n, c), -1, dtype=torch.long)
    for i in range(n):
        k = int(torch.randint(0, c + 1, (1,), generator=g))
        t[i, :k] = torch.randperm(c, generator=g)[:k]
    return t


# name -> (loss(inputs..., reduction), inputs(n) -> list of float64/long tensors; the first is differentiated)
N, C = 6, 5
LOSSES: dict[str, tuple[Callable, Callable[[int], list[torch.Tensor]]]] = {
    "mse": (lambda x, y, r: F.mse_loss(x, y, reduction=r), lambda n: [randn((n, C)), randn((n, C), 1)]),
    "mse_broadcast": (lambda x, y, r: F.mse_loss(x, y.expand_as(x), reduction=r),
                      lambda n: [randn((n, C)), randn((C,), 1)]),
    "l1": (lambda x, y, r: F.l1_loss(x, y, reduction=r), lambda n: [randn((n, C)), randn((n, C), 1)]),
    "smooth_l1": (lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.5),
                  lambda n: [randn((n, C)), randn((n, C), 1)]),
    "smooth_l1_beta0": (lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.0),
                        lambda n: [randn((n, C)), randn((n, C), 1)]),
    "huber": (lambda x, y, r: F.huber_loss(x, y, reduction=r, delta=0.7),
              lambda n: [randn((n, C)), randn((n, C), 1)]),
    "bce": (lambda x, y, r: F.binary_cross_entropy(x, y, reduction=r),
            lambda n: [uniform((n, C), 0.05, 0.95), uniform((n, C), 0, 1, 1)]),
    "bce_weight": (lambda x, y, w, r: F.binary_cross_entropy(x, y, weight=w, reduction=r),
                   lambda n: [uniform((n, C), 0.05, 0.95), uniform((n, C), 0, 1, 1), uniform((C,), 0.5, 2, 2)]),
    "bce_logits": (lambda x, y, r: F.binary_cross_entropy_with_logits(x, y, reduction=r),
                   lambda n: [randn((n, C)) * 4, uniform((n, C), 0, 1, 1)]),
    "bce_logits_weights": (lambda x, y, w, pw, r: F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw,
                                                                                      reduction=r),
                           lambda n: [randn((n, C)) * 4, uniform((n, C), 0, 1, 1), uniform((C,), 0.5, 2, 2),
                                      uniform((C,), 0.5, 3, 3)]),
    "kl_div": (lambda x, y, r: F.kl_div(x, y, reduction="batchmean" if r == "mean" else r, log_target=True),
               lambda n: [randn((n, C)), randn((n, C), 1).log_softmax(-1)]),
    "kl_div_probs": (lambda x, y, r: F.kl_div(x, y, reduction=r),
                     lambda n: [randn((n, C)), randn((n, C), 1).softmax(-1)]),
    "cross_entropy_probs": (lambda x, y, w, r: F.cross_entropy(x, y, weight=w, reduction=r, label_smoothing=0.2),
                            lambda n: [randn((n, C)), randn((n, C), 1).softmax(-1), uniform((C,), 0.5, 2, 2)]),
    "cross_entropy_indices": (lambda x, y, w, r: F.cross_entropy(x, y, weight=w, reduction=r, ignore_index=1,
                                                                  label_smoothing=0.1),
                              lambda n: [randn((n, C)), classes((n,), C, 1), uniform((C,), 0.5, 2, 2)]),
    "nll_4d": (lambda x, y, r: F.nll_loss(x, y, reduction=r),
               lambda n: [randn((n, C, 2, 3, 2)).log_softmax(1), classes((n, 2, 3, 2), C, 1)]),
    "soft_margin": (lambda x, y, r: F.soft_margin_loss(x, y, reduction=r), lambda n: [randn((n, C)), signs((n, C), 1)]),
    "multi_margin": (lambda x, y, r: F.multi_margin_loss(x, y, reduction=r), lambda n: [randn((n, C)), classes((n,), C, 1)]),
    "multi_margin_p2_weight": (lambda x, y, w, r: F.multi_margin_loss(x, y, p=2, margin=0.7, weight=w, reduction=r),
                               lambda n: [randn((n, C)), classes((n,), C, 1), uniform((C,), 0.5, 2, 2)]),
    "multilabel_margin": (lambda x, y, r: F.multilabel_margin_loss(x, y, reduction=r),
                          lambda n: [randn((n, C)), multilabel_targets(n, C, 1)]),
    "multilabel_soft_margin": (lambda x, y, w, r: F.multilabel_soft_margin_loss(x, y, weight=w, reduction=r),
                               lambda n: [randn((n, C)), uniform((n, C), 0, 1, 1).round(), uniform((C,), 0.5, 2, 2)]),
    "poisson_nll": (lambda x, y, r: F.poisson_nll_loss(x, y, reduction=r, full=True),
                    lambda n: [randn((n, C)), uniform((n, C), 0, 4, 1)]),
    "gaussian_nll": (lambda x, y, v, r: F.gaussian_nll_loss(x, y, v, reduction=r),
                     lambda n: [randn((n, C)), randn((n, C), 1), uniform((n, C), 0.5, 2, 2)]),
    "margin_ranking": (lambda a, b, y, r: F.margin_ranking_loss(a, b, y, margin=0.3, reduction=r),
                       lambda n: [randn((n,)), randn((n,), 1), signs((n,), 2)]),
    "hinge_embedding": (lambda x, y, r: F.hinge_embedding_loss(x, y, margin=0.8, reduction=r),
                        lambda n: [randn((n, C)), signs((n, C), 1)]),
    "cosine_embedding": (lambda a, b, y, r: F.cosine_embedding_loss(a, b, y, margin=0.1, reduction=r),
                         lambda n: [randn((n, C)), randn((n, C), 1), signs((n,), 2)]),
    "triplet_margin": (lambda a, p, q, r: F.triplet_margin_loss(a, p, q, margin=0.5, swap=True, reduction=r),
                       lambda n: [randn((n, C)), randn((n, C), 1), randn((n, C), 2)]),
}


def to(t: torch.Tensor, dtype: torch.dtype, device: str) -> torch.Tensor:
    return (t.to(dtype) if t.is_floating_point() else t).to(device)


def run(name: str, inputs: list[torch.Tensor], dtype: torch.dtype, device: str, reduction: str):
    """The loss and the gradient of its first input, on `device` in `dtype`."""
    fn, _ = LOSSES[name]
    args = [to(t, dtype, device) for t in inputs]
    args[0] = args[0].detach().requires_grad_(True)
    out = fn(*args, reduction)
    seed = torch.Generator().manual_seed(9)
    g = torch.rand(out.shape, generator=seed, dtype=torch.float64).to(dtype).to(device) + 0.5
    (grad,) = torch.autograd.grad(out, args[0], g)
    return out.detach(), grad


def reference(name, inputs, dtype, reduction):
    """CPU's result in dtype, or CPU's float32 result rounded to dtype where CPU lacks a kernel for it."""
    try:
        return run(name, inputs, dtype, "cpu", reduction)
    except (RuntimeError, NotImplementedError):
        out, grad = run(name, inputs, torch.float32, "cpu", reduction)
        return out.to(dtype), grad.to(dtype)


def close(npu_result: torch.Tensor, cpu_result: torch.Tensor) -> None:
    assert_matches_cpu(npu_result, cpu_result, TOL, ulps_of_largest=2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_cpu(name, dtype, reduction):
    inputs = LOSSES[name][1](N)
    out, grad = run(name, inputs, dtype, "npu", reduction)
    ref_out, ref_grad = reference(name, inputs, dtype, reduction)
    close(out, ref_out)
    close(grad, ref_grad)


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_empty_batch(name):
    """A batch of zero samples: none gives an empty result, sum and mean CPU's; for the margin losses,
    whose CPU kernels leave those results uninitialized, sum 0 and mean nan (0 / 0)."""
    inputs = LOSSES[name][1](0)
    for reduction in REDUCTIONS:
        out, grad = run(name, inputs, torch.float32, "npu", reduction)
        ref_out, ref_grad = reference(name, inputs, torch.float32, reduction)
        if name.startswith("multi") and "margin" in name and reduction != "none":
            ref_out = torch.tensor(float("nan") if reduction == "mean" else 0.0)
        close(out, ref_out)
        close(grad, ref_grad)


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_gradcheck(name):
    fn, make = LOSSES[name]
    inputs = [to(t, torch.float64, "npu") for t in make(3)]
    x = inputs[0].detach().requires_grad_(True)
    for reduction in REDUCTIONS:
        assert torch.autograd.gradcheck(lambda v: fn(v, *inputs[1:], reduction), (x,))


def test_cross_entropy_all_ignored_mean_is_nan():
    x = randn((4, C)).float().to("npu")
    target = torch.full((4,), 2, device="npu")
    out = F.cross_entropy(x, target, ignore_index=2)
    assert torch.isnan(out.cpu())
    assert F.cross_entropy(x, target, ignore_index=2, reduction="sum").cpu().item() == 0


def test_losses_out_variants_and_strided_inputs():
    """The .out forms write into given tensors; inputs may be non-contiguous views."""
    x = randn((C, 2 * N)).float()[:, ::2].t()
    y = randn((C, 2 * N), 1).float()[:, ::2].t()
    xn, yn = x.to("npu"), y.to("npu")
    assert not xn.is_contiguous()
    for op, kwargs in ((torch.ops.aten.mse_loss.out, {}), (torch.ops.aten.smooth_l1_loss.out, {"beta": 0.3}),
                       (torch.ops.aten.huber_loss.out, {"delta": 0.3})):
        for reduction in (0, 1, 2):
            out = torch.empty(0, device="npu")
            op(xn, yn, reduction, out=out, **kwargs)
            close(out, op(x, y, reduction, out=torch.empty(0), **kwargs))
    p = uniform((N, C), 0.1, 0.9).float()
    out = torch.empty(0, device="npu")
    torch.ops.aten.binary_cross_entropy.out(p.to("npu"), y.sigmoid().to("npu"), None, 0, out=out)
    close(out, torch.ops.aten.binary_cross_entropy(p, y.sigmoid(), None, 0))


def test_loss_bad_arguments():
    x = uniform((3, C), 0, 1).float().to("npu")
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(x * 3 - 1, x).cpu()
    with pytest.raises(RuntimeError, match="delta"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(RuntimeError, match="p == 1 and p == 2"):
        torch.ops.aten.multi_margin_loss(x, torch.zeros(3, dtype=torch.long, device="npu"), 3)
    with pytest.raises(RuntimeError, match="out of bounds"):
        F.multi_margin_loss(x, torch.full((3,), C, dtype=torch.long, device="npu")).cpu()
    with pytest.raises(RuntimeError, match="out of bounds"):
        F.multilabel_margin_loss(x, torch.full((3, C), C, dtype=torch.long, device="npu")).cpu()
    with pytest.raises(RuntimeError, match="reduction"):
        torch.ops.aten.mse_loss_backward(x, x, x, 3)


def _error(fn) -> str:
    """The message fn raises, without synchronizing (the check must fail at the call)."""
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value).splitlines()[0]


MARGIN_SHAPE_ERRORS = {
    "multi_margin_target_size": (lambda d: F.multi_margin_loss(torch.ones(5, 3, device=d),
                                                                torch.zeros(3, dtype=torch.long, device=d))),
    "multi_margin_empty_classes": (lambda d: F.multi_margin_loss(torch.ones(10, 0, device=d),
                                                                 torch.zeros(10, dtype=torch.long, device=d))),
    "multi_margin_empty_batch_target": (lambda d: F.multi_margin_loss(torch.ones(0, 10, device=d),
                                                                      torch.zeros(10, 0, dtype=torch.long, device=d))),
    "multi_margin_weight_size": (lambda d: F.multi_margin_loss(torch.ones(2, 3, device=d),
                                                               torch.zeros(2, dtype=torch.long, device=d),
                                                               weight=torch.ones(4, device=d))),
    "multilabel_margin_target_shape": (lambda d: F.multilabel_margin_loss(torch.ones(5, 3, device=d),
                                                                          torch.zeros(4, 3, dtype=torch.long,
                                                                                      device=d))),
    "multilabel_margin_vector_target": (lambda d: F.multilabel_margin_loss(torch.ones(3, device=d),
                                                                           torch.zeros(2, dtype=torch.long,
                                                                                       device=d))),
    "multilabel_margin_empty_classes": (lambda d: F.multilabel_margin_loss(torch.ones(4, 0, device=d),
                                                                           torch.zeros(4, 0, dtype=torch.long,
                                                                                       device=d))),
}


@pytest.mark.parametrize("case", list(MARGIN_SHAPE_ERRORS))
def test_margin_loss_shape_errors_are_cpus(case):
    """A margin loss's shape errors are CPU's: raised at the call (an empty class dimension included,
    which once launched and failed later on the stream) and worded as CPU words them."""
    fn = MARGIN_SHAPE_ERRORS[case]
    assert _error(lambda: fn("npu")) == _error(lambda: fn("cpu"))


@pytest.mark.parametrize("shape", [(0, 0), (2, 3), (2, 3, 4, 5)], ids=str)
@pytest.mark.parametrize("weight_dtype", [torch.float16, torch.float64], ids=str)
def test_nll_loss_weight_of_another_dtype_is_refused_as_on_cpu(shape, weight_dtype):
    """CPU's kernel reads weight in self's dtype and refuses another, even for
    empty inputs (test_modules' test_errors_nn_NLLLoss); npu read it as
    self's dtype anyway."""
    x = torch.zeros(shape)
    target = torch.zeros((shape[0],) + shape[2:], dtype=torch.long)
    weight = torch.ones(shape[1], dtype=weight_dtype)
    with pytest.raises(RuntimeError) as cpu:
        torch.nn.functional.nll_loss(x, target, weight=weight)
    with pytest.raises(RuntimeError, match=re.escape(str(cpu.value))):
        torch.nn.functional.nll_loss(x.npu(), target.npu(), weight=weight.npu())
