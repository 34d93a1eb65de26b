"""Module.to("npu") and `param.data = t` keep Parameter objects (and with them
tied weights, optimizer references and parametrizations), as for CUDA."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.utils.parametrize as parametrize
from torch import nn


class TiedLM(nn.Module):
    """GPT-style: the output head shares the token embedding's weight."""

    def __init__(self, vocab: int = 11, dim: int = 6) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.emb(tokens)) * self.scale)


def test_shallow_copy_type_is_compatible_between_cpu_and_npu():
    cpu = torch.randn(3)
    npu = cpu.npu()
    for a, b in [(cpu, npu), (npu, cpu), (npu, npu.clone())]:
        assert torch._has_compatible_shallow_copy_type(a, b)
    # Sparse and dense stay incompatible, as on CPU.
    assert not torch._has_compatible_shallow_copy_type(npu, cpu.to_sparse())


@pytest.mark.parametrize("move", [lambda m: m.to("npu"), lambda m: m.npu(), lambda m: m.to("npu:0", non_blocking=True),
                                  lambda m: m.to(torch.device("npu"))])
def test_to_npu_keeps_tied_parameters_tied(move):
    torch.manual_seed(0)
    model = TiedLM()
    emb_weight = model.emb.weight
    expected = emb_weight.detach().clone()
    move(model)
    assert model.head.weight is model.emb.weight
    assert model.emb.weight is emb_weight  # the same Parameter object, now on npu
    assert emb_weight.device.type == "npu"
    assert len(list(model.parameters())) == 3  # emb/head weight once, norm weight and bias
    assert model.scale.device.type == "npu"
    torch.npu.synchronize()
    assert torch.equal(emb_weight.detach().cpu(), expected)


def test_tied_model_trains_like_cpu():
    torch.manual_seed(0)
    cpu_model = TiedLM()
    npu_model = copy.deepcopy(cpu_model).to("npu")
    assert npu_model.head.weight is npu_model.emb.weight
    cpu_opt = torch.optim.AdamW(cpu_model.parameters(), lr=0.05)
    npu_opt = torch.optim.AdamW(npu_model.parameters(), lr=0.05)
    tokens = torch.randint(0, 11, (4, 5), generator=torch.Generator().manual_seed(1))
    targets = torch.randint(0, 11, (4, 5), generator=torch.Generator().manual_seed(2))
    for _ in range(4):
        for model, opt, t, y in [(cpu_model, cpu_opt, tokens, targets),
                                 (npu_model, npu_opt, tokens.npu(), targets.npu())]:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(t).flatten(0, 1), y.flatten())
            loss.backward()
            opt.step()
    assert npu_model.head.weight is npu_model.emb.weight
    for (name, p_cpu), p_npu in zip(cpu_model.named_parameters(), npu_model.parameters()):
        torch.testing.assert_close(p_npu.detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5, msg=name)


def test_optimizer_created_before_to_npu_updates_the_npu_weights():
    # The optimizer holds the Parameter objects; .to("npu") must not replace them.
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.to("npu")
    before = model.weight.detach().cpu().clone()
    model(torch.ones(1, 3, device="npu")).sum().backward()
    opt.step()
    assert not torch.equal(model.weight.detach().cpu(), before)
    torch.testing.assert_close(model.weight.detach().cpu(), before - 0.1 * torch.ones(2, 3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_data_assignment_moves_a_cpu_parameter_to_npu_and_back(dtype):
    values = torch.arange(6).reshape(2, 3).to(dtype)
    p = nn.Parameter(values.clone(), requires_grad=dtype.is_floating_point)
    p.data = values.npu()
    assert p.device.type == "npu" and p.dtype == dtype and p.shape == (2, 3)
    assert torch.equal(p.detach().cpu(), values)
    p.data = p.data.cpu() * 2
    assert p.device.type == "cpu"
    assert torch.equal(p.detach(), values * 2)


def test_data_assignment_of_a_non_contiguous_npu_view():
    p = nn.Parameter(torch.zeros(3, 2))
    src = torch.arange(6.0).reshape(2, 3).npu()
    p.data = src.t()
    assert p.stride() == (1, 3)
    assert torch.equal(p.detach().cpu(), torch.arange(6.0).reshape(2, 3).t())


def test_round_trip_to_npu_and_back_keeps_objects_grads_and_buffers():
    torch.manual_seed(0)
    model = TiedLM()
    reference = copy.deepcopy(model)
    model(torch.tensor([[1, 2]])).sum().backward()
    weight, grad = model.emb.weight, model.emb.weight.grad.clone()
    model.to("npu")
    assert model.emb.weight.grad.device.type == "npu"
    model.to("cpu")
    assert model.emb.weight is weight and model.head.weight is weight
    assert weight.device.type == "cpu"
    torch.testing.assert_close(weight.grad, grad)
    for (name, a), b in zip(model.state_dict().items(), reference.state_dict().values()):
        assert a.device.type == "cpu", name
        assert torch.equal(a, b), name


def test_half_and_npu_conversions_combine():
    model = TiedLM().to("npu", torch.float16)
    assert model.head.weight is model.emb.weight
    assert model.emb.weight.dtype == torch.float16 and model.emb.weight.device.type == "npu"
    model.float().cpu()
    assert model.head.weight is model.emb.weight and model.emb.weight.dtype == torch.float32


class Symmetric(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.triu() + x.triu(1).transpose(0, 1)


def test_parametrized_module_moves_to_npu():
    torch.manual_seed(0)
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    original = layer.parametrizations.weight.original
    expected = layer.weight.detach().clone()
    layer.to("npu")
    assert layer.parametrizations.weight.original is original
    assert original.device.type == "npu"
    w = layer.weight
    assert w.device.type == "npu"
    assert torch.equal(w.detach().cpu(), expected)
    x = torch.randn(2, 3)
    torch.testing.assert_close(layer(x.npu()).detach().cpu(), x @ expected.t() + layer.bias.detach().cpu())


def test_module_with_buffers_moves_to_npu():
    bn = nn.BatchNorm1d(4)
    running_mean = bn.running_mean
    bn.to("npu")
    assert bn.running_mean.device.type == "npu" and bn.num_batches_tracked.device.type == "npu"
    # Buffers are plain tensors, replaced as on CUDA; parameters are kept.
    assert bn.running_mean is not running_mean
    bn.eval()
    x = torch.randn(3, 4)
    torch.testing.assert_close(bn(x.npu()).cpu(), x / (1 + 1e-5) ** 0.5)
