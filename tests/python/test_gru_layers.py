"""Whole GRU layers on npu: nn.GRU runs one aclnnNpuGruLayer launch per layer
and direction over all time steps (and one aclnnNpuGruLayerBackward each for
BPTT), through gru.input / gru.data registered for npu with a C++ autograd
Function (dispatch/ops/gru_layers.cpp). Outputs, final states and every
gradient match CPU; no test lets an op reach the CPU fallback."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import npu_emu
from native_guard import native_only  # noqa: F401
from rnn_layer_cases import CONFIGS, launches, weighted_sum

pytestmark = pytest.mark.usefixtures("native_only")

LAYER_OPS = ("aclnnNpuGruLayer", "aclnnNpuGruLayerBackward")


def _launches() -> dict[str, int]:
    return launches(LAYER_OPS)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_gru_layers_match_cpu_with_one_launch_per_layer_and_direction(name, dtype):
    kwargs, batch_first, with_state = CONFIGS[name]
    torch.manual_seed(0)
    cpu = nn.GRU(5, 6, **kwargs).to(dtype)
    npu = copy.deepcopy(cpu).to("npu")
    g = torch.Generator().manual_seed(1)
    directions = 2 if cpu.bidirectional else 1
    x = torch.randn(3, 4, 5, generator=g, dtype=dtype)  # [T, B, I], or [B, T, I] with batch_first
    batch = x.shape[0] if batch_first else x.shape[1]
    h0 = torch.randn(cpu.num_layers * directions, batch, 6, generator=g, dtype=dtype)
    results = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        inputs = [t.clone().to(device).requires_grad_() for t in (x, *((h0,) if with_state else ()))]
        before = _launches()
        out, h = module(*inputs)
        weighted_sum([out, h]).backward()
        if device == "npu":
            after = _launches()
            layers = cpu.num_layers * directions
            assert {op: after[op] - before[op] for op in LAYER_OPS} == dict.fromkeys(LAYER_OPS, layers)
        results[device] = [t.detach().cpu() for t in (out, h)] + [t.grad.cpu() for t in inputs] + [
            p.grad.cpu() for p in module.parameters()]
    tol = dict(atol=1e-5, rtol=1e-4) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-10)
    for got, expected in zip(results["npu"], results["cpu"], strict=True):
        torch.testing.assert_close(got, expected, **tol)


@pytest.mark.parametrize("used", ["output", "h_n"])
def test_gradient_of_only_one_output(used):
    """Only the output or only h_n reaches the loss: the other's gradient is
    absent (not materialized) and the layer backward treats it as zero."""
    torch.manual_seed(0)
    cpu = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    npu = copy.deepcopy(cpu).to("npu")
    x = torch.randn(4, 2, 3)
    grads = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        xd = x.clone().to(device).requires_grad_()
        out, h = module(xd)
        weighted_sum([out if used == "output" else h]).backward()
        grads[device] = [xd.grad.cpu()] + [p.grad.cpu() for p in module.parameters()]
    for got, expected in zip(grads["npu"], grads["cpu"], strict=True):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_sequences_run_natively_and_match_cpu(bidirectional, enforce_sorted):
    """gru.data: each layer walks the packed rows natively; sequences that
    end early keep their state (forward) or start late from h0 (reverse)."""
    torch.manual_seed(0)
    cpu = nn.GRU(4, 5, num_layers=2, bidirectional=bidirectional)
    npu = copy.deepcopy(cpu).to("npu")
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 4, 4, generator=g)
    h0 = torch.randn(2 * (2 if bidirectional else 1), 4, 5, generator=g)
    lengths = torch.tensor([6, 4, 4, 1]) if enforce_sorted else torch.tensor([3, 6, 1, 4])
    results = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        inputs = [t.clone().to(device).requires_grad_() for t in (x, h0)]
        packed = pack_padded_sequence(inputs[0], lengths, enforce_sorted=enforce_sorted)
        before = _launches()
        out, h = module(packed, inputs[1])
        padded, _ = pad_packed_sequence(out)
        weighted_sum([padded, h]).backward()
        if device == "npu":
            after = _launches()
            layers = 4 if bidirectional else 2
            assert {op: after[op] - before[op] for op in LAYER_OPS} == dict.fromkeys(LAYER_OPS, layers)
        results[device] = [t.detach().cpu() for t in (padded, h)] + [t.grad.cpu() for t in inputs] + [
            p.grad.cpu() for p in module.parameters()]
    for got, expected in zip(results["npu"], results["cpu"], strict=True):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("packed", [False, True])
def test_gradcheck_float64_tiny_layer(packed):
    g = torch.Generator().manual_seed(4)

    def make(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to("npu").requires_grad_()

    weights = [make(6, 3), make(6, 2), make(6), make(6)] + [make(6, 3), make(6, 2), make(6), make(6)]  # 2 directions
    h0 = make(2, 2, 2)
    if packed:
        x = make(5, 3)  # rows of two sequences of lengths 3 and 2
        batch_sizes = torch.tensor([2, 2, 1])

        def fn(x, h0, *w):
            return torch._VF.gru(x, batch_sizes, h0, w, True, 1, 0.0, True, True)
    else:
        x = make(3, 2, 3)

        def fn(x, h0, *w):
            return torch._VF.gru(x, h0, w, True, 1, 0.0, True, True, False)

    before = _launches()
    assert torch.autograd.gradcheck(fn, (x, h0, *weights))
    assert all(_launches()[op] > before[op] for op in LAYER_OPS)


@pytest.mark.parametrize("packed", [False, True])
def test_double_backward_matches_finite_differences(packed):
    """Higher-order gradients: the backward recomputes the layer with ATen's
    cells (native ops) and differentiates that graph."""
    g = torch.Generator().manual_seed(5)

    def make(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to("npu").requires_grad_()

    w_ih, w_hh, b_ih, b_hh, h0 = make(6, 3), make(6, 2), make(6), make(6), make(1, 2, 2)
    if packed:
        x = make(5, 3)
        batch_sizes = torch.tensor([2, 2, 1])

        def fn(x, h0, *w):
            out, h = torch._VF.gru(x, batch_sizes, h0, w, True, 1, 0.0, True, False)
            return out, h
    else:
        x = make(3, 2, 3)

        def fn(x, h0, *w):
            return torch._VF.gru(x, h0, w, True, 1, 0.0, True, False, False)

    before = _launches()
    assert torch.autograd.gradgradcheck(fn, (x, h0, w_ih, w_hh, b_ih, b_hh))
    assert _launches()["aclnnNpuGruLayer"] > before["aclnnNpuGruLayer"]


def test_dropout_between_layers_is_the_npu_generator_s_dropout_of_the_layer_output():
    """Training-mode dropout: the 2-layer GRU equals layer 1, then F.dropout
    of its output drawn from the same npu seed, then layer 2."""
    torch.manual_seed(0)
    gru = nn.GRU(4, 6, num_layers=2, dropout=0.4).to("npu")
    first, second = nn.GRU(4, 6).to("npu"), nn.GRU(6, 6).to("npu")
    with torch.no_grad():
        for layer, module in ((0, first), (1, second)):
            for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(module, f"{kind}_l0").copy_(getattr(gru, f"{kind}_l{layer}"))
    x = torch.randn(5, 3, 4).to("npu")
    torch.npu.manual_seed(7)
    out, h = gru(x)
    torch.npu.manual_seed(7)
    mid, h1 = first(x)
    expected, h2 = second(F.dropout(mid, 0.4, training=True))
    torch.testing.assert_close(out, expected, atol=0, rtol=0)
    torch.testing.assert_close(h, torch.cat([h1, h2]), atol=0, rtol=0)
    # and it is dropout: some of the middle activations were zeroed
    torch.npu.manual_seed(7)
    assert (F.dropout(mid, 0.4, training=True) == 0).sum() > (mid == 0).sum()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_floats_compute_in_float32(dtype):
    """float16/bfloat16 layers compute in float32 and round once: close to
    CPU's float32 GRU on the same rounded values, and differentiable."""
    torch.manual_seed(0)
    reference = nn.GRU(3, 4, num_layers=2)
    with torch.no_grad():
        for p in reference.parameters():
            p.copy_(p.to(dtype).float())
    npu = copy.deepcopy(reference).to(dtype).to("npu")
    x = torch.randn(5, 2, 3).to(dtype)
    before = _launches()
    out = npu(x.to("npu"))[0]
    assert out.dtype == dtype
    expected = reference(x.float())[0]
    tol = 2e-3 if dtype == torch.float16 else 1e-2
    torch.testing.assert_close(out.float().cpu(), expected, atol=tol, rtol=tol)
    out.float().sum().backward()
    assert all(p.grad is not None and p.grad.dtype == dtype for p in npu.parameters())
    assert {op: _launches()[op] - before[op] for op in LAYER_OPS} == dict.fromkeys(LAYER_OPS, 2)


def test_inference_mode_runs_the_layer_op():
    """Without autograd (inference_mode) gru still reaches the layer op."""
    torch.manual_seed(0)
    cpu = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    npu = copy.deepcopy(cpu).to("npu")
    x = torch.randn(5, 2, 3)
    before = _launches()
    with torch.inference_mode():
        got = npu(x.to("npu"))
        expected = cpu(x)
    assert _launches()["aclnnNpuGruLayer"] - before["aclnnNpuGruLayer"] == 4
    for a, b in zip(got, expected):
        torch.testing.assert_close(a.cpu(), b, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("batch_first", [False, True])
def test_empty_sequence_is_refused_as_on_cpu(batch_first):
    module = nn.GRU(3, 4, batch_first=batch_first)
    x = torch.randn(2, 0, 3) if batch_first else torch.randn(0, 2, 3)
    for device in ("cpu", "npu"):
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
            module.to(device)(x.to(device))


def test_empty_batch_gives_empty_outputs_as_on_cpu():
    out, h = nn.GRU(3, 4, num_layers=2).to("npu")(torch.randn(5, 0, 3).to("npu"))
    assert out.shape == (5, 0, 4) and h.shape == (2, 0, 4)


def test_gru_training_step_has_no_fallback_and_few_launches():
    """A GRU classifier step with AdamW: every op native, the recurrence in
    2 forward + 2 backward layer launches."""
    torch.manual_seed(0)
    gru = nn.GRU(8, 16, num_layers=2, batch_first=True).to("npu")
    head = nn.Linear(16, 3).to("npu")
    opt = torch.optim.AdamW([*gru.parameters(), *head.parameters()])
    x, y = torch.randn(4, 10, 8).to("npu"), torch.tensor([0, 2, 1, 1]).to("npu")

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(head(gru(x)[0][:, -1]), y).backward()
        opt.step()

    step()  # the first step also creates AdamW's state
    npu_emu.debug.reset_reports()
    step()
    torch.npu.synchronize()
    assert npu_emu.debug.fallback_report() == {}
    report = npu_emu.native_report()
    assert report.get("aclnnNpuGruLayer") == 2 and report.get("aclnnNpuGruLayerBackward") == 2
    assert sum(report.values()) < 40  # the per-step cell path launched hundreds


def test_single_layer_h_n_is_no_copy_and_may_be_modified_in_place():
    """One layer, one direction: h_n needs no stacking launch, and changing
    it in place after the forward leaves the gradients as on CPU."""
    torch.manual_seed(0)
    cpu = nn.GRU(3, 4)
    npu = copy.deepcopy(cpu).to("npu")
    x = torch.randn(5, 2, 3)
    grads = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        xd = x.clone().to(device).requires_grad_()
        npu_emu.debug.reset_reports()
        out, h = module(xd)
        if device == "npu":
            torch.npu.synchronize()
            assert "aclnnStack" not in npu_emu.native_report()
        loss = weighted_sum([out, h])
        h.detach().zero_()
        loss.backward()
        grads[device] = [xd.grad.cpu()] + [p.grad.cpu() for p in module.parameters()]
    for got, expected in zip(grads["npu"], grads["cpu"], strict=True):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)
