"""ResNet-18 (basic blocks, He et al. 2015) for the training-step benchmark.

Written here so the benchmark needs no torchvision (whose matching wheel is a
CUDA build). The layer shapes are ResNet-18's: a 7x7/2 stem and max pool,
four stages of two basic blocks with 64, 128, 256 and 512 channels, global
average pooling and a linear classifier.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Module = nn.Identity()
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + self.downsample(x))


class ResNet18(nn.Module):
    def __init__(self, num_classes: int = 10, widths: tuple[int, ...] = (64, 128, 256, 512)) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 7, 2, 3, bias=False), nn.BatchNorm2d(widths[0]),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        blocks: list[nn.Module] = []
        cin = widths[0]
        for i, cout in enumerate(widths):
            stride = 1 if i == 0 else 2
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.stages = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.stages(self.stem(x))), 1))


def train_step(device: str, batch: int = 8, size: int = 64, seed: int = 0) -> Callable[[], torch.Tensor]:
    """One SGD step of ResNet-18 on a fixed random batch; returns the loss."""
    torch.manual_seed(seed)
    model = ResNet18().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, 3, size, size).to(device)
    target = torch.randint(0, 10, (batch,)).to(device)

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        return loss.detach()

    return step
