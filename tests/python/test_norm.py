"""Batch norm (native_batch_norm and its backward) runs natively on npu and
matches CPU: training with running statistics (updated by the npu kernel
itself, no CPU write-back), eval, affine or not, track_running_stats=False,
1d/2d/3d inputs, channels_last, float16/bfloat16 with float parameters.

Tolerances: statistics accumulate in double on npu and in float on CPU, so
float32 results agree to summation-order rounding; float16/bfloat16 within
a few ulps of the reduced type (absolutely within two ulps of the result's
largest value). Every test forbids the CPU fallback (native_only).
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TOL = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (4e-3, 1e-2),
       torch.bfloat16: (3.2e-2, 5e-2)}


def close(npu_result, cpu_result, tol_dtype=None) -> None:
    if cpu_result is None:
        assert npu_result is None
        return
    assert npu_result.device.type == "npu"
    assert npu_result.dtype == cpu_result.dtype
    assert npu_result.shape == cpu_result.shape
    rtol, atol = TOL[tol_dtype or cpu_result.dtype]
    if (tol_dtype or cpu_result.dtype) in (torch.float16, torch.bfloat16) and cpu_result.numel() > 0:
        largest = cpu_result.float().abs().nan_to_num(0, 0, 0).max().item()
        atol = max(atol, 2 * torch.finfo(tol_dtype or cpu_result.dtype).eps * largest)
    torch.testing.assert_close(npu_result.cpu(), cpu_result, rtol=rtol, atol=atol, equal_nan=True)


def rand(shape, dtype, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * 2 + 0.5).to(dtype)


MODULES = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d}
SHAPES = {1: [(6, 4), (5, 3, 7)], 2: [(4, 3, 5, 6), (2, 64, 28, 28)], 3: [(2, 3, 4, 3, 5)]}
CONFIGS = [dict(), dict(affine=False), dict(track_running_stats=False), dict(momentum=None)]


def cases():
    for nd, shapes in SHAPES.items():
        for shape in shapes:
            for cfg in CONFIGS:
                yield nd, shape, cfg


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("nd,shape,cfg", list(cases()))
def test_batch_norm_module_training_then_eval(nd, shape, cfg, dtype):
    """Several training steps then eval: outputs, gradients, running stats and num_batches_tracked match CPU."""
    torch.manual_seed(0)
    cpu = MODULES[nd](shape[1], **cfg).to(dtype)
    if cpu.affine:
        with torch.no_grad():
            cpu.weight.copy_(rand(shape[1], dtype, seed=7))
            cpu.bias.copy_(rand(shape[1], dtype, seed=8))
    npu = copy.deepcopy(cpu).to("npu")
    for step in range(3):
        x = rand(shape, dtype, seed=step)
        xc = x.clone().requires_grad_()
        xn = x.to("npu").requires_grad_()
        yc, yn = cpu(xc), npu(xn)
        close(yn.detach(), yc.detach())
        g = rand(shape, dtype, seed=10 + step)
        yc.backward(g)
        yn.backward(g.to("npu"))
        close(xn.grad, xc.grad)
        if cpu.affine:
            close(npu.weight.grad, cpu.weight.grad)
            close(npu.bias.grad, cpu.bias.grad)
    for name, buf in cpu.named_buffers():
        other = dict(npu.named_buffers())[name]
        if buf.dtype == torch.long:
            assert torch.equal(other.cpu(), buf)
        else:
            close(other, buf)
    cpu.eval()
    npu.eval()
    x = rand(shape, dtype, seed=20)
    xc = x.clone().requires_grad_()
    xn = x.to("npu").requires_grad_()
    yc, yn = cpu(xc), npu(xn)
    close(yn.detach(), yc.detach())
    g = rand(shape, dtype, seed=21)
    yc.backward(g)
    yn.backward(g.to("npu"))
    close(xn.grad, xc.grad)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("param_dtype", ["same", "float"])
def test_native_batch_norm_dtypes(dtype, training, param_dtype):
    """The aten ops directly: outputs, saved statistics (dtype and shape as CPU's) and every gradient."""
    pd = dtype if param_dtype == "same" else torch.float32
    x = rand((4, 3, 5, 6), dtype)
    w, b = rand(3, pd, seed=1), rand(3, pd, seed=2)
    rm, rv = rand(3, pd, seed=3), rand(3, pd, seed=4).abs() + 0.5
    rm_n, rv_n = rm.to("npu"), rv.to("npu")
    if pd != dtype and dtype not in (torch.float16, torch.bfloat16):
        # Only reduced floats take float parameters, on CPU as on npu.
        with pytest.raises(RuntimeError, match="mixed"):
            torch.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
        with pytest.raises(RuntimeError, match="mixed"):
            torch.native_batch_norm(x.to("npu"), w.to("npu"), b.to("npu"), rm_n, rv_n, training, 0.1, 1e-5)
        return
    cpu = torch.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
    npu = torch.native_batch_norm(x.to("npu"), w.to("npu"), b.to("npu"), rm_n, rv_n, training, 0.1, 1e-5)
    for a, e in zip(npu, cpu):
        close(a, e, tol_dtype=dtype)
    close(rm_n, rm, tol_dtype=dtype)
    close(rv_n, rv, tol_dtype=dtype)
    g = rand(x.shape, dtype, seed=5)
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        ec = torch.ops.aten.native_batch_norm_backward(g, x, w, rm, rv, cpu[1], cpu[2], training, 1e-5, mask)
        en = torch.ops.aten.native_batch_norm_backward(g.to("npu"), x.to("npu"), w.to("npu"), rm_n, rv_n,
                                                       npu[1], npu[2], training, 1e-5, mask)
        for a, e in zip(en, ec):
            close(a, e, tol_dtype=dtype)


def test_batch_norm_channels_last_and_non_contiguous():
    x = rand((2, 5, 6, 7), torch.float32).to(memory_format=torch.channels_last)
    cpu = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    npu = torch.native_batch_norm(x.to("npu"), None, None, None, None, True, 0.1, 1e-5)
    assert npu[0].stride() == cpu[0].stride()
    for a, e in zip(npu, cpu):
        close(a, e)
    xt = rand((6, 5, 4), torch.float32).transpose(0, 2)  # [4, 5, 6], non-contiguous
    w = rand(10, torch.float32)[::2]
    close(F.batch_norm(xt.to("npu"), None, None, w.to("npu"), training=True),
          F.batch_norm(xt, None, None, w, training=True))


def test_batch_norm_eval_empty_batch():
    rm, rv = torch.zeros(3), torch.ones(3)
    x = torch.empty(0, 3, 4)
    y = F.batch_norm(x.to("npu"), rm.to("npu"), rv.to("npu"))
    assert y.shape == x.shape and y.device.type == "npu"


def test_batch_norm_gradcheck():
    x = rand((3, 2, 4), torch.float64).to("npu").requires_grad_()
    w = rand(2, torch.float64, seed=1).to("npu").requires_grad_()
    b = rand(2, torch.float64, seed=2).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(lambda *t: F.batch_norm(t[0], None, None, t[1], t[2], training=True), (x, w, b))
    rm, rv = torch.zeros(2, dtype=torch.float64, device="npu"), torch.ones(2, dtype=torch.float64, device="npu")
    assert torch.autograd.gradcheck(lambda *t: F.batch_norm(t[0], rm, rv, t[1], t[2], training=False), (x, w, b))


def test_batch_norm_bad_arguments():
    x = torch.randn(4, 3, 5, device="npu")
    with pytest.raises(RuntimeError, match="weight"):
        torch.native_batch_norm(x, torch.ones(4, device="npu"), None, None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="running_mean and running_var"):
        torch.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="at least one element"):
        torch.native_batch_norm(torch.empty(0, 3, device="npu"), None, None, None, None, True, 0.1, 1e-5)


def test_cnn_training_step_native():
    """batch norm -> relu -> flatten as 100 class scores -> cross-entropy, SGD: no fallback, CPU's numbers.

    (No conv or linear: their kernels belong to other families.)"""
    torch.manual_seed(0)
    model = nn.Sequential(nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten()).double()
    npu_model = copy.deepcopy(model).to("npu")
    opt_c = torch.optim.SGD(model.parameters(), lr=0.1)
    opt_n = torch.optim.SGD(npu_model.parameters(), lr=0.1)
    for step in range(3):
        x = rand((6, 4, 5, 5), torch.float64, seed=step)
        t = torch.randint(0, 100, (6,), generator=torch.Generator().manual_seed(step))
        for m, opt, dev in ((model, opt_c, "cpu"), (npu_model, opt_n, "npu")):
            opt.zero_grad()
            F.cross_entropy(m(x.to(dev)), t.to(dev), label_smoothing=0.05).backward()
            opt.step()
    for p_c, p_n in zip(model.state_dict().values(), npu_model.state_dict().values()):
        if p_c.dtype == torch.long:
            assert torch.equal(p_n.cpu(), p_c)
        else:
            close(p_n, p_c)
