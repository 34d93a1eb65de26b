"""Issue 14's acceptance: a resnet-style CNN (conv, batch norm, relu, max pool,
a residual block, adaptive average pool, linear, cross-entropy) trains on npu
with every op native and its conv weights in FRACTAL_Z, matching CPU."""

from __future__ import annotations

import copy

import pytest
import torch
import torch_npu
from torch import nn

from native_guard import native_only  # noqa: F401  (fixture)

FRACTAL_Z = 4


class Block(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class SmallResNet(nn.Module):
    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, stride=2, padding=1))
        self.block = Block(16)
        self.down = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(), nn.AvgPool2d(2))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.down(self.block(self.stem(x))))


def conv_weights_to_fractal_z(model: nn.Module) -> list[nn.Parameter]:
    weights = [m.weight for m in model.modules() if isinstance(m, nn.Conv2d)]
    for w in weights:
        w.data = torch_npu.npu_format_cast(w.data, FRACTAL_Z)
    return weights


def train(model: nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int) -> list[float]:
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_resnet_style_training_step_native_with_fractal_z_weights(native_only):
    torch.manual_seed(0)
    cpu_model = SmallResNet()
    npu_model = copy.deepcopy(cpu_model).npu()
    weights = conv_weights_to_fractal_z(npu_model)
    x, y = torch.randn(4, 3, 32, 32), torch.randint(0, 5, (4,))

    cpu_losses = train(cpu_model, x, y, steps=3)
    npu_losses = train(npu_model, x.npu(), y.npu(), steps=3)

    # float32 with reductions in another order (conv, batch-norm statistics):
    # the losses and parameters agree to ~1e-5 relative after three steps.
    torch.testing.assert_close(torch.tensor(npu_losses), torch.tensor(cpu_losses), rtol=1e-4, atol=1e-5)
    assert cpu_losses[-1] < cpu_losses[0]  # it trains
    assert all(torch_npu.get_npu_format(w) == FRACTAL_Z for w in weights)
    for (name, a), b in zip(cpu_model.state_dict().items(), npu_model.state_dict().values()):
        torch.testing.assert_close(b.cpu(), a, rtol=1e-4, atol=1e-4, msg=lambda m: f"{name}: {m}")

    cpu_model.eval()
    npu_model.eval()
    with torch.no_grad():
        torch.testing.assert_close(npu_model(x.npu()).cpu(), cpu_model(x), rtol=1e-4, atol=1e-4)
