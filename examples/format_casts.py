"""Where do format casts come from? A small CNN with private-format weights
and input, one training step. Run it under the format trace:

    NPU_EMU_TRACE=formats:cnn.jsonl python examples/format_casts.py
    npu-emu formats report cnn.jsonl --plot cnn_casts.png

(see README "Debugging formats")."""

from __future__ import annotations

import torch
from torch import nn

import npu_emu  # noqa: F401  (the npu backend)
from npu_emu import debug
from npu_emu.formats import Format, npu_format_cast


def build() -> nn.Module:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(8, 10)).npu()
    # As a torch_npu model would hold them: the conv weight in FRACTAL_Z, the
    # linear weight in FRACTAL_NZ.
    model[0].weight.data = npu_format_cast(model[0].weight.data, Format.FRACTAL_Z)
    model[4].weight.data = npu_format_cast(model[4].weight.data, Format.FRACTAL_NZ)
    return model


def log_stats(x: torch.Tensor) -> None:
    """What a training script might log each step; each line costs a cast."""
    x[:, :2].abs().amax()  # a part of an NC1HWC0 storage: read through a base-format copy of all of it
    x.cpu()  # to the host: the base layout first


def step(model: nn.Module, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    x = npu_format_cast(torch.randn(4, 3, 16, 16).npu(), Format.NC1HWC0)
    log_stats(x)
    x = x - x.mean(dim=(2, 3), keepdim=True)  # no cast op, but both entries read NC1HWC0 through NCHW scratch
    loss = model(x).square().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def main() -> None:
    model = build()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        step(model, optimizer)
    w = model[4].weight
    print(debug.describe(w))
    print(debug.explain(w))
    print(debug.render_text(w, (3, 5), max_tiles=1))


if __name__ == "__main__":
    main()
