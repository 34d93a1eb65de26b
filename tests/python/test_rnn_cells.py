"""Recurrent layers on npu (nn.LSTM, nn.GRU, nn.RNN and their cells) give
CPU's outputs and gradients, natively (every test forbids the CPU fallback).
ATen sends LSTM/GRU cells on PrivateUse1 devices to the CUDA-only fused cell
ops; npu-emu composes those of other ops."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
from torch import nn

from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")


def _flatten(out) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for item in out for t in _flatten(item)]


LAYERS: dict[str, tuple[Callable[[], nn.Module], Callable[[bool], tuple]]] = {
    # name: (module factory, inputs(batch_first) -> forward arguments)
    "LSTM": (lambda: nn.LSTM(5, 7), lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "LSTM-2-layers-bidirectional-batch_first": (
        lambda: nn.LSTM(5, 6, num_layers=2, bidirectional=True, batch_first=True),
        lambda g: (torch.randn(3, 4, 5, generator=g),)),
    "LSTM-proj-no-bias-with-state": (
        lambda: nn.LSTM(5, 6, proj_size=3, bias=False),
        lambda g: (torch.randn(4, 2, 5, generator=g), (torch.randn(1, 2, 3, generator=g), torch.randn(1, 2, 6, generator=g)))),
    "GRU": (lambda: nn.GRU(5, 7), lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "GRU-2-layers-bidirectional-with-state": (
        lambda: nn.GRU(5, 4, num_layers=2, bidirectional=True),
        lambda g: (torch.randn(3, 2, 5, generator=g), torch.randn(4, 2, 4, generator=g))),
    "GRU-no-bias-unbatched": (lambda: nn.GRU(5, 4, bias=False), lambda g: (torch.randn(6, 5, generator=g),)),
    "RNN-tanh": (lambda: nn.RNN(5, 7), lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "RNN-relu-2-layers": (lambda: nn.RNN(5, 4, num_layers=2, nonlinearity="relu"),
                          lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "LSTMCell": (lambda: nn.LSTMCell(5, 7),
                 lambda g: (torch.randn(3, 5, generator=g), (torch.randn(3, 7, generator=g), torch.randn(3, 7, generator=g)))),
    "GRUCell": (lambda: nn.GRUCell(5, 7), lambda g: (torch.randn(3, 5, generator=g), torch.randn(3, 7, generator=g))),
    "RNNCell": (lambda: nn.RNNCell(5, 7), lambda g: (torch.randn(3, 5, generator=g),)),
    "RNN-relu-bidirectional-batch_first-with-state": (
        lambda: nn.RNN(5, 4, num_layers=2, nonlinearity="relu", bidirectional=True, batch_first=True),
        lambda g: (torch.randn(3, 4, 5, generator=g), torch.randn(4, 3, 4, generator=g))),
    "RNN-tanh-no-bias-unbatched": (lambda: nn.RNN(5, 4, bias=False), lambda g: (torch.randn(6, 5, generator=g),)),
    "LSTM-proj-2-layers-bidirectional": (
        lambda: nn.LSTM(5, 6, num_layers=2, proj_size=2, bidirectional=True),
        lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "LSTM-dropout-in-eval": (lambda: nn.LSTM(5, 6, num_layers=3, dropout=0.5).eval(),
                             lambda g: (torch.randn(4, 3, 5, generator=g),)),
    "RNNCell-relu-unbatched": (lambda: nn.RNNCell(5, 7, nonlinearity="relu"),
                               lambda g: (torch.randn(5, generator=g), torch.randn(7, generator=g))),
    "LSTMCell-no-bias": (lambda: nn.LSTMCell(5, 7, bias=False), lambda g: (torch.randn(3, 5, generator=g),)),
    "GRUCell-unbatched": (lambda: nn.GRUCell(5, 7), lambda g: (torch.randn(5, generator=g),)),
}


def _to(args, device: str, requires_grad: bool):
    if isinstance(args, torch.Tensor):
        return args.detach().clone().to(device).requires_grad_(requires_grad)
    return tuple(_to(a, device, requires_grad) for a in args)


@pytest.mark.parametrize("name", list(LAYERS))
def test_recurrent_layer_forward_and_backward_match_cpu(name):
    make, make_inputs = LAYERS[name]
    torch.manual_seed(0)
    cpu = make()
    npu = copy.deepcopy(cpu).to("npu")
    inputs = make_inputs(torch.Generator().manual_seed(1))
    results = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        args = _to(inputs, device, requires_grad=True)
        outputs = _flatten(module(*args))
        weights = [torch.linspace(-1, 1, t.numel(), device=device).view(t.shape) for t in outputs]
        sum((o * w).sum() for o, w in zip(outputs, weights)).backward()
        results[device] = {
            "outputs": [o.detach().cpu() for o in outputs],
            "input grads": [a.grad.cpu() for a in _flatten(args)],
            "parameter grads": [p.grad.cpu() for p in module.parameters()],
        }
        assert all(o.device.type == device for o in outputs)
    for key, expected in results["cpu"].items():
        torch.testing.assert_close(results["npu"][key], expected, atol=1e-5, rtol=1e-4, msg=f"{name}: {key}")


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_recurrent_layer_runs_in_inference_mode(name):
    """inference_mode skips autograd: the cell ops are reached without it."""
    make, make_inputs = LAYERS[name]
    cpu = make()
    npu = copy.deepcopy(cpu).to("npu")
    inputs = make_inputs(torch.Generator().manual_seed(2))
    with torch.inference_mode():
        expected = _flatten(cpu(*inputs))
        got = _flatten(npu(*_to(inputs, "npu", requires_grad=False)))
    torch.testing.assert_close([g.cpu() for g in got], expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("op, args, error", [
    ("_thnn_fused_lstm_cell", lambda: (torch.randn(2, 8), torch.randn(2, 8), torch.randn(2, 3)),
     r"the state must be \[batch, hidden\] with gates \[batch, 4 \* hidden\]"),
    ("_thnn_fused_gru_cell", lambda: (torch.randn(2, 6), torch.randn(2, 9), torch.randn(2, 3)),
     "input_gates and hidden_gates must be 2-D of the same shape"),
])
def test_fused_cell_shape_errors_name_the_op(op, args, error):
    npu_args = [t.npu() for t in args()]
    with pytest.raises(RuntimeError, match=f"{op}: {error}"):
        getattr(torch.ops.aten, op)(*npu_args)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_packed_sequences_match_cpu(cls):
    torch.manual_seed(0)
    cpu = cls(4, 5, batch_first=True)
    npu = copy.deepcopy(cpu).to("npu")
    x = torch.randn(3, 6, 4, generator=torch.Generator().manual_seed(3))
    lengths = torch.tensor([6, 4, 2])
    outputs = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        packed = pack_padded_sequence(x.to(device), lengths, batch_first=True)
        out, _ = pad_packed_sequence(module(packed)[0], batch_first=True)
        assert out.device.type == device
        outputs[device] = out.cpu()
    torch.testing.assert_close(outputs["npu"], outputs["cpu"], atol=1e-5, rtol=1e-4)


PACKED = {
    "LSTM": lambda: nn.LSTM(4, 5),
    "LSTM-2-layers-bidirectional-proj": lambda: nn.LSTM(4, 5, num_layers=2, bidirectional=True, proj_size=3),
    "GRU-2-layers-bidirectional": lambda: nn.GRU(4, 5, num_layers=2, bidirectional=True),
    "RNN-tanh-bidirectional": lambda: nn.RNN(4, 5, bidirectional=True),
    "RNN-relu-2-layers": lambda: nn.RNN(4, 5, num_layers=2, nonlinearity="relu"),
}


@pytest.mark.parametrize("name", list(PACKED))
def test_packed_unsorted_sequences_forward_backward_match_cpu(name):
    """pack_padded_sequence with unsorted lengths: the batch is sorted by an
    index_select whose backward is an index_add; outputs, final states and
    every gradient match CPU."""
    torch.manual_seed(0)
    cpu = PACKED[name]()
    npu = copy.deepcopy(cpu).to("npu")
    x = torch.randn(6, 4, 4, generator=torch.Generator().manual_seed(3))
    lengths = torch.tensor([3, 6, 1, 4])  # unsorted
    results = {}
    for device, module in (("cpu", cpu), ("npu", npu)):
        inp = x.detach().clone().to(device).requires_grad_()
        packed = pack_padded_sequence(inp, lengths, enforce_sorted=False)
        out, state = module(packed)
        padded, out_lengths = pad_packed_sequence(out)
        assert torch.equal(out_lengths, lengths)
        tensors = [padded] + _flatten(state)
        weights = [torch.linspace(-1, 1, t.numel(), device=device).view(t.shape) for t in tensors]
        sum((t * w).sum() for t, w in zip(tensors, weights)).backward()
        results[device] = [t.detach().cpu() for t in tensors] + [inp.grad.cpu()] + [
            p.grad.cpu() for p in module.parameters()]
    for got, expected in zip(results["npu"], results["cpu"]):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4, msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_dropout_between_layers_is_seeded_and_differentiable(cls):
    """Dropout between layers draws on the npu generator: the same seed gives
    the same outputs and gradients, a different seed different outputs, and
    p = 0 in training equals evaluation (CPU draws differ, so the values are
    compared with themselves and with the mathematical identities)."""
    torch.manual_seed(0)
    module = cls(4, 8, num_layers=3, dropout=0.5).to("npu")
    x = torch.randn(5, 2, 4, generator=torch.Generator().manual_seed(1)).to("npu")

    def step(seed):
        module.zero_grad()
        torch.npu.manual_seed(seed)
        out = module(x)[0]
        out.sum().backward()
        return out.detach().cpu(), [p.grad.cpu() for p in module.parameters()]

    out_a, grads_a = step(5)
    out_b, grads_b = step(5)
    out_c, _ = step(6)
    assert torch.equal(out_a, out_b) and all(torch.equal(a, b) for a, b in zip(grads_a, grads_b))
    assert not torch.equal(out_a, out_c)
    module.eval()
    expected = module(x)[0].detach().cpu()
    module.train()
    module.dropout = 0.0
    torch.testing.assert_close(module(x)[0].detach().cpu(), expected)
