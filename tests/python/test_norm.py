"""Normalization runs natively on npu and matches CPU, forward and backward:
batch norm (native_batch_norm and its backward: training with running
statistics updated by the npu kernel itself, eval, affine or not,
track_running_stats=False, 1d/2d/3d inputs, channels_last, float16/bfloat16
with float parameters), layer norm (native_layer_norm, one aclnnLayerNorm
launch, and its backward), group norm (native_group_norm and its backward),
RMS norm (_fused_rms_norm and its backward, what F.rms_norm / nn.RMSNorm
call) and instance norm (batch norm of a reshaped input).

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

import npu_emu
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


def module_matches_cpu(cpu, npu, x: torch.Tensor, grad: torch.Tensor | None = None) -> torch.Tensor:
    """cpu(x) and npu(x) agree, and so do the input gradients of grad (default: of the sum); returns npu's input."""
    xc, xn = x.clone().requires_grad_(), x.to("npu").requires_grad_()
    yc, yn = cpu(xc), npu(xn)
    close(yn.detach(), yc.detach())
    if grad is None:
        yc.sum().backward()
        yn.sum().backward()
    else:
        yc.backward(grad)
        yn.backward(grad.to("npu"))
    close(xn.grad, xc.grad)
    return xn


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
        module_matches_cpu(cpu, npu, rand(shape, dtype, seed=step), rand(shape, dtype, seed=10 + step))
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
    module_matches_cpu(cpu, npu, rand(shape, dtype, seed=20), rand(shape, dtype, seed=21))


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


# ---- layer norm, group norm, RMS norm, instance norm ------------------------------------------------------------

def launches(op: str, fn) -> int:
    """How many times `fn()` launched the aclnn op `op` natively."""
    before = npu_emu.native_report().get(op, 0)
    fn()
    torch.npu.synchronize()
    return npu_emu.native_report().get(op, 0) - before


def forward_backward(fn, inputs: list, grad_seed: int):
    """fn(*inputs) on CPU and on npu, then its backward: outputs and every input's gradient, (cpu, npu) pairs."""
    cpu_in = [None if t is None else t.clone().requires_grad_() for t in inputs]
    npu_in = [None if t is None else t.to("npu").requires_grad_() for t in inputs]
    yc = fn(*cpu_in)
    yn = fn(*npu_in)
    g = rand(yc.shape, yc.dtype, seed=grad_seed)
    yc.backward(g)
    yn.backward(g.to("npu"))
    pairs = [(yn.detach(), yc.detach())]
    pairs += [(n.grad, c.grad) for n, c in zip(npu_in, cpu_in) if c is not None]
    return pairs


LAYER_CASES = [((6, 10), (10,)), ((4, 3, 5), (3, 5)), ((2, 3, 4, 5), (3, 4, 5)), ((2, 3, 4, 5), (5,)),
               ((256, 128), (128,))]
AFFINE = ["none", "weight", "both"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,normalized", LAYER_CASES)
@pytest.mark.parametrize("affine", AFFINE)
def test_layer_norm_forward_backward(dtype, shape, normalized, affine):
    x = rand(shape, dtype)
    w = rand(normalized, dtype, seed=1) if affine != "none" else None
    b = rand(normalized, dtype, seed=2) if affine == "both" else None
    for a, e in forward_backward(lambda x, w, b: F.layer_norm(x, normalized, w, b, eps=1e-5), [x, w, b], 3):
        close(a, e, tol_dtype=dtype)


def test_layer_norm_is_one_launch_each_way():
    x = rand((8, 32, 128), torch.float32).to("npu").requires_grad_()
    ln = nn.LayerNorm(128).to("npu")
    assert launches("aclnnLayerNorm", lambda: ln(x)) == 1
    y = ln(x)
    assert launches("aclnnLayerNormBackward", lambda: y.sum().backward()) == 1


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_layer_norm_reduced_input_float_parameters(dtype):
    """A float16/bfloat16 input with float weight and bias ("mixed"): float statistics, as on CPU."""
    x = rand((5, 3, 8), dtype)
    w, b = rand((3, 8), torch.float32, seed=1), rand((3, 8), torch.float32, seed=2)
    cpu = torch.native_layer_norm(x, [3, 8], w, b, 1e-5)
    npu = torch.native_layer_norm(x.to("npu"), [3, 8], w.to("npu"), b.to("npu"), 1e-5)
    assert [t.dtype for t in npu] == [t.dtype for t in cpu] == [dtype, torch.float32, torch.float32]
    for a, e in zip(npu, cpu):
        close(a, e, tol_dtype=dtype)
    g = rand(x.shape, dtype, seed=3)
    ec = torch.ops.aten.native_layer_norm_backward(g, x, [3, 8], cpu[1], cpu[2], w, b, [True, True, True])
    en = torch.ops.aten.native_layer_norm_backward(g.to("npu"), x.to("npu"), [3, 8], npu[1], npu[2], w.to("npu"),
                                                   b.to("npu"), [True, True, True])
    for a, e in zip(en, ec):
        close(a, e, tol_dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_saved_statistics(dtype):
    """mean and rstd as CPU returns them: the leading dims then ones, the input's dtype."""
    x = rand((4, 3, 6), dtype)
    cpu = torch.native_layer_norm(x, [3, 6], None, None, 1e-5)
    npu = torch.native_layer_norm(x.to("npu"), [3, 6], None, None, 1e-5)
    for a, e in zip(npu, cpu):
        close(a, e, tol_dtype=dtype)  # dtype and shape too


@pytest.mark.parametrize("mask", [[True, False, False], [False, True, True], [False, False, True]])
def test_layer_norm_backward_output_mask(mask):
    x, g = rand((5, 7), torch.float32), rand((5, 7), torch.float32, seed=4)
    w, b = rand(7, torch.float32, seed=1), rand(7, torch.float32, seed=2)
    _, mean, rstd = torch.native_layer_norm(x, [7], w, b, 1e-5)
    ec = torch.ops.aten.native_layer_norm_backward(g, x, [7], mean, rstd, w, b, mask)
    en = torch.ops.aten.native_layer_norm_backward(g.to("npu"), x.to("npu"), [7], mean.to("npu"), rstd.to("npu"),
                                                   w.to("npu"), b.to("npu"), mask)
    for a, e, wanted in zip(en, ec, mask):
        if wanted:
            close(a, e)
        else:
            assert a is None


def test_layer_norm_non_contiguous_operands():
    x = rand((6, 5, 4), torch.float32).transpose(0, 2)  # [4, 5, 6]
    w = rand(12, torch.float32, seed=1)[::2]
    b = rand((6, 2), torch.float32, seed=2)[:, 1]
    for a, e in forward_backward(lambda x, w, b: F.layer_norm(x, (6,), w, b), [x, w, b], 3):
        close(a, e)


def test_layer_norm_empty():
    """No rows: empty outputs and zero parameter gradients. Rows of no elements: mean 0 (an empty sum), rstd NaN."""
    x = torch.empty(0, 4, device="npu", requires_grad=True)
    ln = nn.LayerNorm(4).to("npu")
    y = ln(x)
    assert y.shape == (0, 4)
    y.sum().backward()
    assert x.grad.shape == (0, 4)
    assert torch.equal(ln.weight.grad.cpu(), torch.zeros(4)) and torch.equal(ln.bias.grad.cpu(), torch.zeros(4))
    out, mean, rstd = torch.native_layer_norm(torch.empty(3, 0, device="npu"), [0], None, None, 1e-5)
    assert out.shape == (3, 0) and mean.shape == rstd.shape == (3, 1)
    assert torch.equal(mean.cpu(), torch.zeros(3, 1))
    assert rstd.cpu().isnan().all()


def test_layer_norm_rows_of_one_element():
    """Each row is its own mean: the output is exactly bias, and the input's gradient vanishes (up to the rounding of
    terms of size rstd^3 = eps^-1.5 that cancel; CPU's own result is such noise too)."""
    x = rand((3, 1), torch.float32).to("npu").requires_grad_()
    w, b = rand(1, torch.float32, seed=1).to("npu"), rand(1, torch.float32, seed=2).to("npu")
    y = F.layer_norm(x, (1,), w, b)
    assert torch.equal(y.detach().cpu(), b.cpu().expand(3, 1))
    y.sum().backward()
    assert x.grad.abs().max().item() < 1e-3


def test_layer_norm_gradcheck():
    x = rand((3, 2, 4), torch.float64).to("npu").requires_grad_()
    w = rand((2, 4), torch.float64, seed=1).to("npu").requires_grad_()
    b = rand((2, 4), torch.float64, seed=2).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(lambda x, w, b: F.layer_norm(x, (2, 4), w, b), (x, w, b))
    assert torch.autograd.gradcheck(lambda x: F.layer_norm(x, (4,)), (x,))


def test_layer_norm_bad_arguments():
    x = torch.randn(4, 3, 5, device="npu")
    with pytest.raises(RuntimeError, match="normalized_shape"):
        torch.native_layer_norm(x, [4], None, None, 1e-5)
    with pytest.raises(RuntimeError, match="weight"):
        torch.native_layer_norm(x, [5], torch.ones(4, device="npu"), None, 1e-5)
    with pytest.raises(RuntimeError, match="at least 1-dimensional"):
        torch.native_layer_norm(x, [], None, None, 1e-5)


GROUP_CASES = [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((4, 6), 3), ((2, 4, 3, 2, 2), 1), ((1, 8, 16, 16), 4)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,groups", GROUP_CASES)
@pytest.mark.parametrize("affine", AFFINE)
def test_group_norm_forward_backward(dtype, shape, groups, affine):
    x = rand(shape, dtype)
    w = rand(shape[1], dtype, seed=1) if affine != "none" else None
    b = rand(shape[1], dtype, seed=2) if affine == "both" else None
    for a, e in forward_backward(lambda x, w, b: F.group_norm(x, groups, w, b, eps=1e-5), [x, w, b], 3):
        close(a, e, tol_dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_native_group_norm_statistics_and_mask(dtype):
    x = rand((3, 6, 4), dtype)
    w, b = rand(6, dtype, seed=1), rand(6, dtype, seed=2)
    cpu = torch.native_group_norm(x, w, b, 3, 6, 4, 2, 1e-5)
    npu = torch.native_group_norm(x.to("npu"), w.to("npu"), b.to("npu"), 3, 6, 4, 2, 1e-5)
    assert npu[1].shape == cpu[1].shape == (3, 2)
    for a, e in zip(npu, cpu):
        close(a, e, tol_dtype=dtype)
    g = rand(x.shape, dtype, seed=5)
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        ec = torch.ops.aten.native_group_norm_backward(g, x, cpu[1], cpu[2], w, 3, 6, 4, 2, mask)
        en = torch.ops.aten.native_group_norm_backward(g.to("npu"), x.to("npu"), npu[1], npu[2], w.to("npu"), 3, 6,
                                                       4, 2, mask)
        for a, e in zip(en, ec):
            close(a, e, tol_dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_group_norm_reduced_input_float_parameters(dtype):
    x = rand((2, 4, 3, 3), dtype)
    w, b = rand(4, torch.float32, seed=1), rand(4, torch.float32, seed=2)
    cpu = torch.native_group_norm(x, w, b, 2, 4, 9, 2, 1e-5)
    npu = torch.native_group_norm(x.to("npu"), w.to("npu"), b.to("npu"), 2, 4, 9, 2, 1e-5)
    assert [t.dtype for t in npu] == [t.dtype for t in cpu] == [dtype, torch.float32, torch.float32]
    for a, e in zip(npu, cpu):
        close(a, e, tol_dtype=dtype)


def test_group_norm_channels_last_and_module():
    x = rand((2, 6, 5, 4), torch.float32).to(memory_format=torch.channels_last)
    gn = nn.GroupNorm(3, 6)
    with torch.no_grad():
        gn.weight.copy_(rand(6, torch.float32, seed=1))
        gn.bias.copy_(rand(6, torch.float32, seed=2))
    gn_n = copy.deepcopy(gn).to("npu")
    module_matches_cpu(gn, gn_n, x, rand(x.shape, torch.float32, seed=3))
    close(gn_n.weight.grad, gn.weight.grad)
    close(gn_n.bias.grad, gn.bias.grad)


def test_group_norm_empty():
    x = torch.empty(0, 4, 3, device="npu", requires_grad=True)
    gn = nn.GroupNorm(2, 4).to("npu")
    y = gn(x)
    assert y.shape == (0, 4, 3)
    y.sum().backward()
    assert torch.equal(gn.weight.grad.cpu(), torch.zeros(4)) and torch.equal(gn.bias.grad.cpu(), torch.zeros(4))
    out, mean, rstd = torch.native_group_norm(torch.empty(2, 4, 0, device="npu"), None, None, 2, 4, 0, 2, 1e-5)
    assert out.shape == (2, 4, 0) and mean.shape == (2, 2)
    assert torch.equal(mean.cpu(), torch.zeros(2, 2))
    assert rstd.cpu().isnan().all()


def test_group_norm_gradcheck():
    x = rand((2, 4, 3), torch.float64).to("npu").requires_grad_()
    w = rand(4, torch.float64, seed=1).to("npu").requires_grad_()
    b = rand(4, torch.float64, seed=2).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    assert torch.autograd.gradcheck(lambda x: F.group_norm(x, 4), (x,))


def test_group_norm_bad_arguments():
    x = torch.randn(2, 6, 3, device="npu")
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        torch.native_group_norm(x, None, None, 2, 6, 3, 4, 1e-5)
    with pytest.raises(RuntimeError, match="weight"):
        torch.native_group_norm(x, torch.ones(5, device="npu"), None, 2, 6, 3, 3, 1e-5)


RMS_CASES = [((6, 10), (10,)), ((4, 3, 5), (3, 5)), ((2, 3, 64), (64,)), ((3, 2), (2,))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,normalized", RMS_CASES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("eps", [None, 1e-6])
def test_rms_norm_forward_backward(dtype, shape, normalized, weighted, eps):
    x = rand(shape, dtype)
    w = rand(normalized, dtype, seed=1) if weighted else None
    for a, e in forward_backward(lambda x, w: F.rms_norm(x, normalized, w, eps), [x, w], 3):
        close(a, e, tol_dtype=dtype)


def test_rms_norm_runs_the_fused_op_natively():
    """F.rms_norm / nn.RMSNorm reach _fused_rms_norm on npu: one aclnnRmsNorm, one aclnnRmsNormGrad."""
    rms = nn.RMSNorm(64).to("npu")
    x = rand((8, 16, 64), torch.float32).to("npu").requires_grad_()
    assert launches("aclnnRmsNorm", lambda: rms(x)) == 1
    y = rms(x)
    assert launches("aclnnRmsNormGrad", lambda: y.sum().backward()) == 1
    y, rstd = torch.ops.aten._fused_rms_norm(x.detach().half(), [64], None, None)
    assert y.dtype == torch.float16 and rstd.dtype == torch.float32 and rstd.shape == (8, 16, 1)


def test_rms_norm_module_and_gradcheck():
    torch.manual_seed(0)
    cpu = nn.RMSNorm((3, 4), eps=1e-5).double()
    with torch.no_grad():
        cpu.weight.copy_(rand((3, 4), torch.float64, seed=1))
    npu = copy.deepcopy(cpu).to("npu")
    xn = module_matches_cpu(cpu, npu, rand((5, 3, 4), torch.float64))
    close(npu.weight.grad, cpu.weight.grad)
    w = rand((3, 4), torch.float64, seed=2).to("npu").requires_grad_()
    assert torch.autograd.gradcheck(lambda x, w: F.rms_norm(x, (3, 4), w), (xn.detach().requires_grad_(), w))


def test_rms_norm_empty_rows():
    x = torch.empty(0, 8, device="npu", requires_grad=True)
    w = torch.ones(8, device="npu", requires_grad=True)
    y = F.rms_norm(x, (8,), w)
    assert y.shape == (0, 8)
    y.sum().backward()
    assert torch.equal(w.grad.cpu(), torch.zeros(8))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 4, 3, 2), (2, 2, 2, 3, 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm_forward_backward(dtype, shape, affine):
    """instance_norm is batch norm of the input reshaped to [1, N * C, ...]: native both ways."""
    x = rand(shape, dtype)
    w = rand(shape[1], dtype, seed=1) if affine else None
    b = rand(shape[1], dtype, seed=2) if affine else None
    for a, e in forward_backward(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [x, w, b], 3):
        close(a, e, tol_dtype=dtype)


def test_instance_norm_running_stats():
    torch.manual_seed(0)
    cpu = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    npu = copy.deepcopy(cpu).to("npu")
    x = rand((2, 3, 4, 5), torch.float32)
    close(npu(x.to("npu")), cpu(x))
    close(npu.running_mean, cpu.running_mean)
    close(npu.running_var, cpu.running_var)
    cpu.eval()
    npu.eval()
    module_matches_cpu(cpu, npu, x)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_batch_norm_eval_reduced_forward_backward(dtype):
    rm, rv = rand(3, torch.float32, seed=3), rand(3, torch.float32, seed=4).abs() + 0.5
    w, b = rand(3, torch.float32, seed=1), rand(3, torch.float32, seed=2)
    x = rand((4, 3, 5), dtype)
    fn = lambda x: F.batch_norm(x, rm.to(x.device), rv.to(x.device), w.to(x.device), b.to(x.device))  # noqa: E731
    for a, e in forward_backward(fn, [x], 3):
        close(a, e, tol_dtype=dtype)


def test_layer_norm_stack_gradients_match_cpu():
    """LayerNorm -> Linear -> LayerNorm, as in a transformer block: every parameter's gradient matches CPU."""
    torch.manual_seed(0)
    layer = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16), nn.LayerNorm(16))
    npu_layer = copy.deepcopy(layer).to("npu")
    x = rand((4, 6, 16), torch.float32)
    for m, dev in ((layer, "cpu"), (npu_layer, "npu")):
        m(x.to(dev)).pow(2).mean().backward()
    for p_c, p_n in zip(layer.parameters(), npu_layer.parameters()):
        close(p_n.grad, p_c.grad)
