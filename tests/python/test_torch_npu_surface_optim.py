"""torch_npu.optim's fused optimizers on npu-emu: the same parameters as
torch.optim's algorithm on the CPU after several steps."""

from __future__ import annotations

import pytest
import torch

import npu_emu  # noqa: F401
from torch_npu.optim import (NpuFusedAdadelta, NpuFusedAdam, NpuFusedAdamW, NpuFusedLamb, NpuFusedOptimizerBase,
                             NpuFusedRMSprop, NpuFusedSGD)

CASES = [
    (NpuFusedSGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=1e-3)),
    (NpuFusedSGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (NpuFusedAdam, torch.optim.Adam, dict(lr=2e-3, betas=(0.9, 0.99), weight_decay=0.05)),
    (NpuFusedAdam, torch.optim.Adam, dict(lr=2e-3, amsgrad=True)),
    (NpuFusedAdamW, torch.optim.AdamW, dict(lr=2e-3, weight_decay=0.05)),
    (NpuFusedAdadelta, torch.optim.Adadelta, dict(lr=1.0, rho=0.9, weight_decay=0.05)),
    (NpuFusedRMSprop, torch.optim.RMSprop, dict(lr=0.01, eps=1e-3, momentum=0.5, centered=True)),
]


def _params(device: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    shapes = [(4, 3), (7,), (2, 3, 5)]
    return [torch.randn(s, generator=g).to(device).requires_grad_() for s in shapes]


def _grads(step: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(100 + step)
    return [torch.randn(s, generator=g) for s in [(4, 3), (7,), (2, 3, 5)]]


@pytest.mark.parametrize("fused_cls,torch_cls,kwargs", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_fused_optimizer_matches_torch_optim(fused_cls, torch_cls, kwargs):
    npu_params, cpu_params = _params("npu"), _params("cpu")
    fused = fused_cls(npu_params, **kwargs)
    reference = torch_cls(cpu_params, foreach=False, **kwargs)
    assert isinstance(fused, torch_cls) and isinstance(fused, NpuFusedOptimizerBase)
    for step in range(5):
        for p_npu, p_cpu, grad in zip(npu_params, cpu_params, _grads(step)):
            p_npu.grad = grad.to("npu")
            p_cpu.grad = grad.clone()
        fused.step()
        reference.step()
    for p_npu, p_cpu in zip(npu_params, cpu_params):
        torch.testing.assert_close(p_npu.detach().cpu(), p_cpu.detach(), rtol=1e-5, atol=1e-6)
    fused.zero_grad()
    assert all(p.grad is None for p in npu_params)


def test_fused_optimizer_state_dict_round_trip():
    params = _params("npu")
    opt = NpuFusedAdam(params, lr=1e-3)
    for p, g in zip(params, _grads(0)):
        p.grad = g.to("npu")
    opt.step()
    clone = NpuFusedAdam(params, lr=1e-3)
    clone.load_state_dict(opt.state_dict())
    assert torch.equal(clone.state[params[0]]["exp_avg"].cpu(), opt.state[params[0]]["exp_avg"].cpu())


def test_clip_grad_norm_fused_matches_clip_grad_norm():
    npu_params, cpu_params = _params("npu"), _params("cpu")
    for p_npu, p_cpu, grad in zip(npu_params, cpu_params, _grads(0)):
        p_npu.grad = grad.to("npu") * 10
        p_cpu.grad = grad.clone() * 10
    opt = NpuFusedSGD(npu_params, lr=0.1)
    norm = opt.clip_grad_norm_fused_(1.0)
    expected = torch.nn.utils.clip_grad_norm_(cpu_params, 1.0)
    torch.testing.assert_close(norm.cpu(), expected)
    for p_npu, p_cpu in zip(npu_params, cpu_params):
        torch.testing.assert_close(p_npu.grad.cpu(), p_cpu.grad)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="learning rate"):
        NpuFusedAdam(_params("npu"), lr=-1.0)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        NpuFusedAdamW(_params("npu"), betas=(0.9, 1.0))
    with pytest.raises(TypeError, match="lr is required"):
        NpuFusedSGD(_params("npu"))
    with pytest.raises(ValueError, match="Nesterov"):
        NpuFusedSGD(_params("npu"), lr=0.1, nesterov=True)


def test_third_party_fused_optimizers_refuse_clearly():
    with pytest.raises(RuntimeError, match="NpuFusedLamb is not supported by npu-emu"):
        NpuFusedLamb(_params("npu"), lr=0.01)
