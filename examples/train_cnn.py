"""Train a small CNN with batch norm on the Ascend npu: AdamW, mixed precision
(torch.npu.amp), convolution weights in FRACTAL_Z and input images in
NC1HWC0, the layouts the cube unit reads.

    NPU=emu python examples/train_cnn.py --steps 8 --amp float16 --compare

The task is synthetic and learnable: an image's class is the quadrant whose
pixels are brightest. With --compare the same model, from the same weights
and batches, also trains on CPU in float32, and the losses are compared.
"""

from __future__ import annotations

import copy
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu

from training_report import cpu_reference, debug, parse_args, print_table, reset_counters, timed_steps

BATCH, SIZE, CLASSES = 16, 16, 4


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # No convolution bias before batch norm: the norm removes it anyway.
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).flatten(1))


def make_batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(steps):
        y = torch.randint(0, CLASSES, (BATCH,), generator=g)
        x = torch.randn(BATCH, 3, SIZE, SIZE, generator=g)
        half = SIZE // 2
        for i, c in enumerate(y.tolist()):
            row, col = divmod(c, 2)
            x[i, :, row * half:(row + 1) * half, col * half:(col + 1) * half] += 1.0
        batches.append((x, y))
    return batches


def to_npu_formats(model: nn.Module) -> None:
    """Convolution weights to FRACTAL_Z, as torch_npu users do for the cube unit."""
    for module in model.modules():
        if isinstance(module, nn.Conv2d):
            module.weight.data = torch_npu.npu_format_cast(module.weight.data, torch_npu.Format.FRACTAL_Z)


def trainer(model: nn.Module, device: str, amp: str):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    use_amp = device == "npu" and amp != "off"
    dtype = torch.bfloat16 if amp == "bfloat16" else torch.float16
    # float16 needs loss scaling; bfloat16 has float32's range and does not.
    # A small initial scale keeps the first steps from overflowing (and being skipped).
    scaler = torch.npu.amp.GradScaler(init_scale=2.0**10, enabled=use_amp and amp == "float16")

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if device == "npu":
            x = torch_npu.npu_format_cast(x, torch_npu.Format.NC1HWC0)  # activations in NC1HWC0
        optimizer.zero_grad(set_to_none=True)
        with torch.npu.amp.autocast(enabled=use_amp, dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    return step


def main() -> int:
    args = parse_args(__doc__.splitlines()[0], steps=8)
    torch.manual_seed(0)
    initial = SmallCNN()
    batches = make_batches(args.steps)

    cpu_steps = cpu_reference(trainer, initial, batches, args.compare)

    reset_counters()
    model = copy.deepcopy(initial).npu()
    to_npu_formats(model)
    setup_casts = debug.native_report().get("aclnnNpuFormatCast", 0) if debug else 0  # no counters on hardware
    npu_steps = list(timed_steps(trainer(model, "npu", args.amp), batches, "npu"))
    print(f"conv weight format: {torch_npu.get_npu_format(model.features[0].weight)} (FRACTAL_Z = "
          f"{int(torch_npu.Format.FRACTAL_Z)}), after {args.steps} AdamW steps")
    ok = print_table(f"small CNN with batch norm, AdamW, amp={args.amp}", npu_steps, cpu_steps, args.amp, setup_casts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
