"""Acceptance (issue 15): four small models train on npu with AdamW, with the
CPU fallback forbidden (NPU_EMU_FALLBACK=error), and match CPU.

Models: a CNN with batch norm, a GPT-style transformer (tied embedding/head,
causal F.scaled_dot_product_attention), an LSTM classifier and a GRU
classifier. Modes: float32; AMP float16 (torch.autocast("npu") +
torch.amp.GradScaler("npu")); autocast bfloat16 (no scaler).

Reference and tolerances. The CPU reference is always the same model trained
in float32 from the same initial weights and batches (CPU autocast has other
op lists than CUDA/npu, so it is not a closer reference). Per-step losses
must agree within
- float32: rtol 1e-4 (summation order only);
- float16 AMP: rtol 1e-2 (matmuls/convolutions in float16, 11-bit mantissa;
  measured <= 1e-3);
- bfloat16 autocast: rtol 3e-2 (8-bit mantissa; measured <= 2e-3);
and the final parameters within atol 1e-4 (float32), and for the reduced
types within 3 * lr * steps absolutely (AdamW's step is about lr per
element whatever the gradient's size, so reduced precision may move a
parameter whose gradient is near zero the other way) plus a mean absolute
difference below lr * steps / 4 (measured: max 1.2 * lr * steps, mean
0.15 * lr * steps). Biases whose gradient is zero in exact arithmetic
(a convolution's before batch norm, attention's key projection) are left
out of the models: AdamW turns their rounding noise into full-size steps of
random sign. The GradScaler must not have skipped a step
(its init scale is small enough for these losses), so both runs took the
same number of optimizer steps.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

STEPS = 4
LR = 1e-2
LOSS_RTOL = {"float32": 1e-4, "amp_float16": 1e-2, "autocast_bfloat16": 3e-2}
MODES = list(LOSS_RTOL)
INIT_SCALE = 1024.0


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).flatten(1))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim, bias=False), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4, layers: int = 2, context: int = 16) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(context, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied embedding/head

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.shape[1], device=idx.device)
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))


class RecurrentClassifier(nn.Module):
    def __init__(self, cell: type[nn.Module], features: int = 8, hidden: int = 16, classes: int = 5) -> None:
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.rnn(x)
        return self.out(y[:, -1])


@dataclass
class Case:
    make: Callable[[], nn.Module]
    batch: Callable[[torch.Generator], tuple[torch.Tensor, torch.Tensor]]
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def classify(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float(), target)


def next_token(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.flatten(0, 1).float(), target.flatten())


CASES = {
    "cnn": Case(SmallCNN, lambda g: (torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)),
                classify),
    "gpt": Case(TinyGPT, lambda g: (torch.randint(0, 64, (4, 16), generator=g),
                                    torch.randint(0, 64, (4, 16), generator=g)), next_token),
    "lstm": Case(lambda: RecurrentClassifier(nn.LSTM),
                 lambda g: (torch.randn(6, 7, 8, generator=g), torch.randint(0, 5, (6,), generator=g)), classify),
    "gru": Case(lambda: RecurrentClassifier(nn.GRU),
                lambda g: (torch.randn(6, 7, 8, generator=g), torch.randint(0, 5, (6,), generator=g)), classify),
}

def train(model: nn.Module, case: Case, device: str, mode: str) -> tuple[list[float], nn.Module]:
    g = torch.Generator().manual_seed(1)
    batches = [case.batch(g) for _ in range(STEPS)]
    model = model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=LR)
    amp_dtype = {"amp_float16": torch.float16, "autocast_bfloat16": torch.bfloat16}.get(mode)
    use_amp = device == "npu" and amp_dtype is not None
    scaler = torch.amp.GradScaler(device, init_scale=INIT_SCALE, enabled=use_amp and mode == "amp_float16")
    losses = []
    for x, y in batches:
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=amp_dtype or torch.float16, enabled=use_amp):
            out = model(x.to(device))
            # Every model ends in a linear layer: autocast's dtype when it is on.
            assert out.dtype == (amp_dtype if use_amp else torch.float32)
            loss = case.loss(out, y.to(device))
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    if scaler.is_enabled():
        assert scaler.get_scale() >= INIT_SCALE, "GradScaler skipped a step: the runs are not comparable"
    return losses, model


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_model_trains_natively_and_matches_cpu(name, mode, native_only):  # noqa: F811
    case = CASES[name]
    torch.manual_seed(0)
    initial = case.make()
    cpu_losses, cpu_model = train(copy.deepcopy(initial), case, "cpu", "float32")
    npu_losses, npu_model = train(copy.deepcopy(initial), case, "npu", mode)

    torch.testing.assert_close(torch.tensor(npu_losses), torch.tensor(cpu_losses), rtol=LOSS_RTOL[mode], atol=0)
    for (pname, p_npu), (_, p_cpu), (_, p0) in zip(npu_model.named_parameters(), cpu_model.named_parameters(),
                                                   initial.named_parameters()):
        assert p_npu.dtype == torch.float32, pname  # master weights stay float32 under AMP
        got, want = p_npu.detach().cpu(), p_cpu.detach()
        if mode == "float32":
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4, msg=pname)
        else:
            diff = (got - want).abs()
            assert diff.max().item() <= 3 * LR * STEPS, pname
            assert diff.mean().item() <= LR * STEPS / 4, pname
        assert not torch.equal(got, p0.detach()), f"{pname} did not train"


# --- the demo's example scripts (scripts/demo.sh) keep running and matching CPU

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("amp", ["float16", "bfloat16"])
@pytest.mark.parametrize("script", ["train_cnn.py", "train_gpt.py"])
def test_example_script_trains_and_matches_cpu(script, amp):
    env = {**os.environ, "NPU": "emu", "NPU_EMU_FALLBACK": "allow"}
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), "--steps", "2", "--amp", amp, "--compare"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.split()[:1] == ["1"] for line in lines), proc.stdout  # a row per step
    assert "ops on the CPU fallback:" in proc.stdout
    assert f"for amp={amp}): match" in proc.stdout
