"""Small training runs, each executed on npu (the real torch_npu on the
stand-in) and on CPU from the same initial weights and data; prints the
largest parameter difference after the last step. Run as a script in a fresh
interpreter by test_training.py (so the stand-in's report is written at exit):

    NPU=emu python training_workloads.py linear_sgd|cnn_adamw|transformer_adamw|transformer_fused_adamw|cnn_amp_float16|lstm_adamw
"""

from __future__ import annotations

import copy
import sys

import torch
import torch_npu  # noqa: F401


def linear_sgd() -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor, type, dict]:
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    return model, torch.randn(32, 8), torch.randint(0, 4, (32,)), torch.optim.SGD, {"lr": 0.1, "momentum": 0.9}


# AdamW divides each gradient by its running RMS, so a parameter whose exact
# gradient is 0 (a bias just before BatchNorm, the key projection's bias in
# attention) moves by about lr per step in the direction of its rounding
# noise, on CPU as on npu: no comparison is possible there. The workloads
# leave such biases out, as models usually do.


def cnn_adamw():
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Dropout(0.0), torch.nn.Linear(8, 10))
    return model, torch.randn(4, 3, 12, 12), torch.randint(0, 10, (4,)), torch.optim.AdamW, {"lr": 0.01}


class TinyTransformer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(50, 16)
        self.layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True,
                                                 bias=False)
        self.head = torch.nn.Linear(16, 50)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.layer(self.embed(tokens))).flatten(0, 1)


def transformer_adamw():
    tokens = torch.randint(0, 50, (2, 6))
    return TinyTransformer(), tokens, torch.randint(0, 50, (12,)), torch.optim.AdamW, {"lr": 0.01}


def transformer_fused_adamw():
    # AdamW(fused=True): torch_npu steps each parameter with aclnnApplyAdamWV2.
    model, tokens, targets, optimizer_class, options = transformer_adamw()
    return model, tokens, targets, optimizer_class, {**options, "fused": True}


class TinyLSTM(torch.nn.Module):
    # One unidirectional layer with biases: what torch_npu runs on aclnnLSTM
    # (it sends other LSTMs to the legacy aclop path).
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 12, batch_first=True)
        self.head = torch.nn.Linear(12, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def lstm_adamw():
    return TinyLSTM(), torch.randn(4, 7, 6), torch.randint(0, 5, (4,)), torch.optim.AdamW, {"lr": 0.01}


def train(model, inputs, targets, optimizer_class, options, device: str, steps: int = 3) -> torch.nn.Module:
    model = model.to(device)
    optimizer = optimizer_class(model.parameters(), **options)
    inputs, targets = inputs.to(device), targets.to(device)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    return model


def cnn_amp_float16():
    # AMP: float16 autocast with a GradScaler (torch_npu's scaler on npu):
    # unscale (aclnnForeachNonFiniteCheckAndUnscale), clip, step, update
    # (aclnnAmpUpdateScale).
    model, inputs, targets, _, options = cnn_adamw()
    return model, inputs, targets, "amp", options


def train_amp(model, inputs, targets, options, device: str, steps: int = 3) -> torch.nn.Module:
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), **options)
    scaler = torch.npu.amp.GradScaler() if device == "npu" else torch.amp.GradScaler("cpu")
    inputs, targets = inputs.to(device), targets.to(device)
    for _ in range(steps):
        optimizer.zero_grad()
        with torch.autocast(device, dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    return model


def main(name: str) -> None:
    torch.manual_seed(0)
    model, inputs, targets, optimizer_class, options = globals()[name]()
    if optimizer_class == "amp":
        on_cpu = train_amp(copy.deepcopy(model), inputs, targets, options, "cpu")
        on_npu = train_amp(model, inputs, targets, options, "npu")
    else:
        on_cpu = train(copy.deepcopy(model), inputs, targets, optimizer_class, options, "cpu")
        on_npu = train(model, inputs, targets, optimizer_class, options, "npu")
    diff = max((a.detach() - b.detach().cpu()).abs().max().item()
               for a, b in zip(on_cpu.parameters(), on_npu.parameters()))
    print(f"max_diff {diff}")


if __name__ == "__main__":
    main(sys.argv[1])
